/// What of a file's metadata goes into an edited copy of it: a photo's EXIF block, a video's
/// container and stream tags. Camera, dates and places identify people too, so tools that
/// anonymise strip them by default.
public enum MetadataPolicy: Sendable, Equatable {
    /// None of it (a video keeps each stream's `language`).
    case strip
    /// All of it but the location (EXIF GPS, location tags, telemetry), which only with `location`.
    case keep(location: Bool)
}
