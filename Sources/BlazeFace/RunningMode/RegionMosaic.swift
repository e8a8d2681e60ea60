import BlazeImage
import VisionTasks

extension FaceDetector {
    /// The most regions `detect(image:searchArea: .regions(...))` takes: one per quadrant of the input.
    public static let maxSearchRegions = 4

    /// Searches up to four regions with one inference (`detect(image:searchArea: .regions(...))`):
    /// each region is letterboxed into its own quadrant (half the input's side) of the model's
    /// input, the rest stays at the letterbox value, and each detection is mapped back through
    /// the quadrant its centre falls in. A tracker's cheap search between full detections,
    /// costing one inference however many faces (up to four) it follows. Results, per region,
    /// are in whole-image coordinates.
    func detect<P: SampledPixels & Sendable>(sampled pixels: P, searchRegions regions: [RotatedRect]) throws(DetectorError) -> [FaceDetectorResult] {
        guard (1...Self.maxSearchRegions).contains(regions.count) else {
            throw .invalidOption(name: "searchRegions", value: "\(regions.count) regions", allowed: "1...\(Self.maxSearchRegions)")
        }
        return try state.withLock { pipeline throws(DetectorError) in try pipeline.detectMosaic(pixels, regions: regions) }
    }
}

extension DetectorState {
    mutating func detectMosaic<P: SampledPixels>(_ image: P, regions: [RotatedRect]) throws(DetectorError) -> [FaceDetectorResult] {
        let size = imageToTensor.width, half = size / 2
        let tile = ImageToTensor(width: half, height: half, valueRange: imageToTensor.valueRange, keepAspectRatio: true)
        let input = network.input()
        input.update(repeating: imageToTensor.valueRange.lowerBound)   // the letterbox band's value (black)
        var transforms: [ImageToTensor.Transform] = []
        var buffer = [Float](repeating: 0, count: half * half * 3)
        for (i, region) in regions.enumerated() {
            let transform = try buffer.withUnsafeMutableBufferPointer { b throws(DetectorError) in
                try tile.convert(sampling: image, region: region, into: b)
            }
            transforms.append(transform)
            let (column, row) = (i % 2, i / 2)
            for y in 0..<half {
                let from = y * half * 3, to = ((row * half + y) * size + column * half) * 3
                for k in 0..<(half * 3) { input[to + k] = buffer[from + k] }
            }
        }
        network.run()
        decoder.decode(regressors: network.output(regressorsIndex), logits: network.output(logitsIndex), into: &decoded)
        nms(decoded, scratch: &nmsScratch, into: &merged)
        var results = [FaceDetectorResult](repeating: FaceDetectorResult(), count: regions.count)
        for var d in merged {
            let cx = d.box.xMin + d.box.width / 2, cy = d.box.yMin + d.box.height / 2
            guard cx.isFinite, cy.isFinite, (0..<1).contains(cx), (0..<1).contains(cy) else { continue }
            let (column, row) = (cx < 0.5 ? 0 : 1, cy < 0.5 ? 0 : 1)
            let index = row * 2 + column
            guard index < regions.count else { continue }
            // Input coordinates to the quadrant's own normalized coordinates.
            let (ox, oy) = (Float(column) * 0.5, Float(row) * 0.5)
            d.box = NormalizedRect(xMin: (d.box.xMin - ox) * 2, yMin: (d.box.yMin - oy) * 2, width: d.box.width * 2, height: d.box.height * 2)
            for k in d.keypoints.indices { d.keypoints[k] = ((d.keypoints[k].x - ox) * 2, (d.keypoints[k].y - oy) * 2) }
            DetectionProjection(m: transforms[index].projection)(&d)
            // minFaceSize against the whole image (the box is in its normalized coordinates now);
            // maxFaces per region.
            _ = faces.add(d, to: &results[index], width: image.width, height: image.height)
        }
        return results
    }
}
