#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// Turns the landmark network's raw output into image landmarks, as the landmark graph's
/// TensorsToLandmarksCalculator (478 points of x, y, z in 256x256 crop pixels, normalized by
/// the crop size, z by its width), LandmarkLetterboxRemovalCalculator (no letterbox here: the
/// identity) and LandmarkProjectionCalculator (rotate about the crop centre, scale by the
/// region, z scaled as x) do it.
public enum LandmarkDecoding {
    /// Points the network predicts.
    public static let count = 478

    /// Writes the 478 projected landmarks of `raw` (1434 values) into `landmarks`.
    package static func project(raw: UnsafeBufferPointer<Float>, region: FaceRegion, cropSize: Int = 256,
                               into landmarks: inout [SIMD3<Float>]) {
        landmarks.removeAll(keepingCapacity: true)
        let size = Float(cropSize)
        let c = cosf(region.rotation), s = sinf(region.rotation)
        for i in 0..<min(count, raw.count / 3) {
            // TensorsToLandmarks: normalized to the crop.
            let x = raw[3 * i] / size, y = raw[3 * i + 1] / size, z = raw[3 * i + 2] / size / 1
            // LandmarkProjection: about the crop centre, into the region.
            let dx = x - 0.5, dy = y - 0.5
            var nx = c * dx - s * dy
            var ny = s * dx + c * dy
            nx = nx * region.width + region.xCenter
            ny = ny * region.height + region.yCenter
            landmarks.append(SIMD3(nx, ny, z * region.width))
        }
    }

    /// The same for an array (tests and tools).
    package static func project(raw: [Float], region: FaceRegion, cropSize: Int = 256) -> [SIMD3<Float>] {
        var out: [SIMD3<Float>] = []
        raw.withUnsafeBufferPointer { project(raw: $0, region: region, cropSize: cropSize, into: &out) }
        return out
    }
}
