import VisionTasks

extension VisionTaskError {
    /// The analysis refused a face (landmarks, image size, an option or the geometry out of
    /// range): "cannot analyse the face: why".
    static func cannotAnalyse(_ why: String) -> VisionTaskError { .invalidInput("cannot analyse the face: \(why)") }

    /// Classification was asked for but a blendshape it needs is missing.
    static func missingBlendshape(_ name: String) -> VisionTaskError {
        .invalidInput("cannot classify the face: blendshape '\(name)' is missing")
    }
}
