import BlazeWeights
import Foundation
import Testing
@testable import BlazeFace

/// The bundled weights travel as the package's resources (issue 22): found through the resource
/// bundle SwiftPM builds beside the test binary, and a missing file's error names every place.
@Suite struct WeightsLocatorTests {
    @Test func bundledWeightsAreFoundInTheResourceBundle() throws {
        let folder = try #require(BundledWeights.folder)
        #expect(folder.path.contains("_BlazeWeights."))
        for file in ["face_detection_short_range.bin", "face_detection_full_range.bin", "face_landmarks_detector.bin",
                     "face_blendshapes.bin", "face_geometry.bin"] {
            #expect(FileManager.default.isReadableFile(atPath: folder.appendingPathComponent(file).path), "\(file)")
        }
    }

    /// Without BLAZEFACE_WEIGHTS the locator takes the bundle's copy first, byte for byte the
    /// repository's file.
    @Test func locatorPrefersTheBundleToTheSourceTree() throws {
        guard ProcessInfo.processInfo.environment["BLAZEFACE_WEIGHTS"] == nil else { return }
        let path = try WeightsLocator.path(for: "face_detection_short_range.bin")
        #expect(path.contains("_BlazeWeights."))
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Weights/face_detection_short_range.bin")
        #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: source.path))
    }

    @Test func aMissingFileNamesEveryPlaceLookedIn() {
        #expect {
            _ = try WeightsLocator.path(for: "no_such_model.bin")
        } throws: { error in
            guard case .weightsNotFound(let searched)? = error as? DetectorError else { return false }
            return searched.count >= 3 && searched.allSatisfy { $0.hasSuffix("/no_such_model.bin") }
                && searched.contains { $0.contains("_BlazeWeights.") } && searched.contains { $0.hasSuffix("Weights/no_such_model.bin") }
        }
    }
}
