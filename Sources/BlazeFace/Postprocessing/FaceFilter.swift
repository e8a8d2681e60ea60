/// The last step of every search, written once: the plain detection, the region mosaic (each
/// region on its own) and the merge of tiles all end here. Faces come best first, in the
/// picture's normalized coordinates; a face with a NaN anywhere (from NaN pixels or weights) is
/// dropped, as is one narrower than `minFaceSize` (counted in the result's
/// `narrowerThanMinFaceSize`); the first `maxFaces` are kept (MediaPipe's
/// ClipDetectionVectorSize), each with its pixel box.
struct FaceFilter: Sendable {
    let minFaceSize: Float
    let maxFaces: Int?

    init(_ options: FaceDetectorOptions) {
        (minFaceSize, maxFaces) = (options.minFaceSize, options.maxFaces)
    }

    /// Appends `d` to `result` (for a `width` x `height` picture) unless it is dropped or `result`
    /// holds `maxFaces` already (when `capped`); false once `result` is full, so that a caller
    /// going best first may stop.
    @inline(__always)
    func add(_ d: RawDetection, to result: inout FaceDetectorResult, width: Int, height: Int, capped: Bool = true) -> Bool {
        guard d.score.isFinite, d.box.xMin.isFinite, d.box.yMin.isFinite, d.box.width.isFinite,
              d.box.height.isFinite, d.keypoints.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return true }
        guard d.box.width >= minFaceSize else {
            result.narrowerThanMinFaceSize += 1
            return true
        }
        if capped, let maxFaces, result.detections.count == maxFaces { return false }
        result.detections.append(Detection(
            boundingBox: BoundingBox(d.box, imageWidth: width, imageHeight: height),
            relativeBoundingBox: d.box, score: d.score, keypoints: d.keypoints))
        return true
    }
}
