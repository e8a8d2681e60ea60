import InternalUtilities
import BlazeImageIO
import ArgumentParser
import BlazeFace
import BlazeImage
import LandmarkDetection
import Foundation

/// `blazeface bench-landmarks`: times the Face Landmarker per stage on one photo.
struct BenchLandmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-landmarks",
        abstract: "Time the face landmarker: landmark and blendshape networks, per face, and detect(); medians and minima.")

    @Option(help: "Threads per network, or auto (the cores this process may use, up to 4).")
    var threads = ThreadCount(1)

    @Option(help: "Timed iterations (after warm-up).")
    var iterations: Int = 100

    @Option(help: "The photo (default: the bundled 1280x853 two-face photo).")
    var image: String?

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Flag(help: "Also print each landmark- and blendshape-network layer's median time and GFLOP/s.")
    var layers = false

    func validate() throws {
        guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
    }

    func run() throws {
        let landmarker: FaceLandmarker
        let photo: RGBImage
        do {
            landmarker = try FaceLandmarker(options: FaceLandmarkerOptions(numFaces: 4, outputFaceBlendshapes: true, threadPool: threads.makePool()))
            photo = try ImageFile.read(contentsOf: image ?? BenchDefaults.photo(), applyingOrientation: true)
        } catch let e as DetectorError { throw ToolError(e.description) } catch let e as ImageError { throw ToolError(e.description) }
        let regions = try landmarker.regions(for: photo)
        guard !regions.isEmpty else { throw ToolError("no face in the photo") }
        let faces = try landmarker.detect(image: photo).faces
        guard let face = faces.first else { throw ToolError("no landmarks in the photo") }

        let network = Timing.measure(iterations: iterations) { landmarker.runLandmarkNetwork() }
        _ = try landmarker.blendshapes(for: face.landmarks, imageWidth: photo.width, imageHeight: photo.height)
        let blend = Timing.measure(iterations: iterations) { landmarker.runBlendshapeNetwork() }
        let crop = try Timing.measure(iterations: iterations) { _ = try landmarker.inputTensor(for: photo, region: regions[0]) }
        let detection = try Timing.measure(iterations: iterations) { _ = try landmarker.regions(for: photo) }
        let detect = try Timing.measure(iterations: iterations) { _ = try landmarker.detect(image: photo) }
        let perFace = ((detect.median - detection.median) / Double(faces.count) * 10).rounded() / 10
        let cpu = Timing.cpuName()
        if json {
            var out = JSONObject()
            out.field("threads", threads.value)
            out.field("faces", faces.count)
            for (name, timing) in [("landmarkNetwork", network), ("blendshapeNetwork", blend), ("crop", crop), ("detection", detection), ("detect", detect)] {
                out.field(name, timing)
            }
            out.field("perFace_median_us", perFace)
            out.field("cpu", cpu)
            print(out.text)
        } else {
            print("\(threads.value) thread(s), \(iterations) iterations, \(photo.width)x\(photo.height) photo, \(faces.count) face(s), \(cpu)")
            print("landmark network    median \(network.median) us  min \(network.min) us")
            print("blendshape network  median \(blend.median) us  min \(blend.min) us")
            print("crop 256x256        median \(crop.median) us  min \(crop.min) us")
            print("face detection      median \(detection.median) us  min \(detection.min) us")
            print("detect() all faces  median \(detect.median) us  min \(detect.min) us")
            print("per face (detect() minus detection, / faces): \(perFace) us")
        }
        if layers {
            for l in landmarker.profileLandmarkLayers(iterations: iterations) + landmarker.profileBlendshapeLayers(iterations: iterations) {
                print(Timing.layerLine(l, shapeWidth: 16))
            }
        }
    }
}
