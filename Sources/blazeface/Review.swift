import ArgumentParser
import BlazeImage
import BlazeImageIO
import FaceRedaction
import FileRedaction
import Foundation
import MediaFiles

/// `blazeface review IN MASKS -o review.html`: the review page of a masks file (`ReviewPage`):
/// the moments that need a look, as thumbnails with their masks outlined, where a person removes
/// masks, adds boxes and exports the edited file for `redact --apply-masks`.
struct Review: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one self-contained HTML page to check and correct a masks file: the moments that need a look first, masks outlined; remove masks, add boxes, export for redact --apply-masks.")

    @Argument(help: "The photo or video the masks file is for.")
    var input: String

    @Argument(help: "The masks file (redact --masks).")
    var masks: String

    @Option(name: .shortAndLong, help: "The page to write (HTML).")
    var output: String

    @Option(help: "At most this many moments (1...2000).")
    var limit: Int = 120

    @Option(help: "A regular look every this many frames besides the flagged moments (a missed face has no mask to flag it).")
    var sampleEvery: Int = 50

    @Option(help: "Thumbnails' width in pixels (64...1920).")
    var thumbnailWidth: Int = 480

    @Flag(help: "Show the frames as filmed, faces visible, with the masks outlined, instead of as published: the page then holds faces, keep it as private as the input.")
    var showInput = false

    @Option(help: "The picture a masks file of mode image pastes over faces (redact --replace-with); without it such masks are shown black.")
    var replaceWith: String?

    func validate() throws {
        try checkRange(limit, 1...2000, "--limit")
        try checkRange(sampleEvery, 1...100_000, "--sample-every")
        try checkRange(thumbnailWidth, 64...1920, "--thumbnail-width")
    }

    func run() throws {
        let kind = try MediaKind.of(input)
        guard kind != .folder, input != "-" else { throw ValidationError("review takes one photo or video file") }
        try refuseOverwriting(input: input, with: output)
        try refuseOverwriting(input: masks, with: output)
        let file = try Redact.readMasks(masks, replacement: try replaceWith.map(Redact.readReplacement), flag: "review: \(masks)", needsPicture: false)
        if let mismatch = file.mismatch(withInputAt: input) {
            printError("review: \(masks) \(mismatch), not \(input)")
            throw ExitCode(BatchExit.refused)
        }
        let moments: [ReviewPage.Moment]
        do {
            moments = try ReviewPage.write(masks: file, masksPath: masks, input: input, to: output,
                                           options: ReviewPageOptions(limit: limit, sampleEvery: sampleEvery, thumbnailWidth: thumbnailWidth, showsInput: showInput))
        } catch { throw ToolError(error.description) }
        printError("review: \(output): \(moments.count) moment(s) of \(file.frames.count) frame(s)"
                   + (showInput ? ", shown as filmed: the page holds faces" : ""))
    }
}
