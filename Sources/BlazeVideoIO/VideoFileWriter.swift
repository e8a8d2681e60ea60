import BlazeImage
import CFFmpegSupport
import Foundation

/// How a `VideoFileWriter` encodes and what it copies.
public struct VideoWriteOptions: Sendable, Equatable {
    /// The video codec.
    public enum Codec: String, Sendable, CaseIterable {
        /// H.264 (libx264) for .mp4, .m4v, .mov and .mkv; VP9 (libvpx-vp9) for .webm.
        case automatic
        /// H.264 through libx264.
        case h264
        /// HEVC through libx265 (tagged hvc1 in MP4 and MOV, as Apple's players want).
        case hevc
        /// VP9 through libvpx-vp9.
        case vp9
    }

    /// Which tags go from the input to the output (`BlazeImage.MetadataPolicy`): `.strip`
    /// keeps no container or stream tags but each stream's `language` (no title, no
    /// creation_time, no device or location); `.keep(location:)` copies container and stream
    /// tags (Apple's `com.apple.quicktime.*` keys too), except keys naming `location` or `gps`
    /// unless `location`; with `location`, data streams (GoPro GPMF, dashcam NMEA telemetry)
    /// are copied too.
    public typealias MetadataPolicy = BlazeImage.MetadataPolicy

    public var codec: Codec
    /// Constant quality (CRF; lower is better). nil: 23 for H.264 (with `superfast`: 40 to 48 dB
    /// against the decoded input on seven real clips, Docs/video-files.md), 20 for HEVC, 24 for
    /// VP9 (46.4 dB on a light-grain 720p clip at realtime, cpu-used 8).
    public var quality: Int?
    /// The x264/x265 preset (ultrafast ... veryslow). nil: `defaultPreset`.
    public var preset: String?
    /// VP9's deadline (`realtime`, `good`, `best`) and cpu-used (0...8, higher is faster). nil:
    /// realtime, 8 (with row-based multithreading, always on): on the same 2-core machine and
    /// clip, cpu-used 8 encodes at 73 frames/s, 7 at 67, 6 at 60, 5 at 37, within 0.1 dB of each other.
    public var vp9Deadline: String?, vp9CPUUsed: Int?
    /// Encoder threads; 0 lets FFmpeg choose (one per core).
    public var threads: Int
    /// Copy the input's audio streams packet for packet.
    public var copyAudio: Bool
    /// Copy the input's subtitle streams (those the container can hold, and telemetry only with the location kept;
    /// others are dropped with a warning).
    public var copySubtitles: Bool
    public var metadata: MetadataPolicy

    /// x264's (and x265's) preset by default: `superfast`, with CRF 23 for H.264: files people
    /// keep. On seven real clips (Docs/video-files.md, "Encoder defaults") the outputs are 0.7 to
    /// 2.0 times their inputs at 40 to 48 dB PSNR, where `ultrafast` at CRF 18 (the default before
    /// 2026-11-28) made them 2.9 to 7.8 times; encoding costs about 11 ms a 720p frame on one core
    /// instead of 6.
    public static let defaultPreset = "superfast"

    public init(codec: Codec = .automatic, quality: Int? = nil, preset: String? = nil, vp9Deadline: String? = nil,
                vp9CPUUsed: Int? = nil, threads: Int = 0, copyAudio: Bool = true, copySubtitles: Bool = true,
                metadata: MetadataPolicy = .strip) {
        (self.codec, self.quality, self.preset, self.vp9Deadline, self.vp9CPUUsed) = (codec, quality, preset, vp9Deadline, vp9CPUUsed)
        (self.threads, self.copyAudio, self.copySubtitles, self.metadata) = (threads, copyAudio, copySubtitles, metadata)
    }
}

/// Writes frames to an MP4, M4V, MOV, MKV or WebM file (by the path's extension), encoded with
/// H.264, HEVC or VP9 in yuv420p with the input's colour properties, one output frame per
/// input frame at the same presentation times, and copies the reader's audio and subtitle
/// streams packet for packet (bit-identical). Never copied: other video streams, cover art,
/// attachments, and data streams (telemetry can hold GPS) unless metadata and location are
/// kept. No display rotation is written: frames are upright already.
///
/// The file is written under a hidden temporary name in the destination's folder
/// (`.NAME.partial-PID-XXXXXXXX.EXT`, PID this process's id) and moved over the destination only by `finish()`, after the
/// trailer is written and the data synced: a failure, `cancel()`, or a writer dropped unfinished
/// removes the temporary file, and nothing ever appears at the destination half-written.
///
/// `write` and `finish` are called from one thread at a time; the reader's thread hands the
/// copied packets to the same muxer meanwhile, under the writer's lock.
public final class VideoFileWriter: VideoFrameSink, @unchecked Sendable {
    /// The destination.
    public let path: String
    /// Where the file is written until `finish()` moves it into place.
    public let temporaryPath: String
    /// The size of the frames it takes.
    public let width: Int, height: Int
    /// The size of the encoded video: the frames', less an odd last column or row for H.264 and
    /// HEVC (their 4:2:0 needs even sizes; VP9 keeps odd ones).
    public let encodedWidth: Int, encodedHeight: Int
    /// The codec chosen (never `.automatic`).
    public let codec: VideoWriteOptions.Codec
    /// The input's streams copied (their indexes in the input).
    public let copiedStreams: [Int]
    /// What was dropped and why, one sentence each, for the caller to print.
    public private(set) var warnings: [String] = []
    /// Frames written so far.
    public private(set) var framesWritten = 0

    /// The extensions a writer accepts.
    public static let supportedExtensions = ["mp4", "m4v", "mov", "mkv", "webm"]

    /// Whether a file of the container `ext` names ("mp4", "mov", ...) can hold every audio
    /// stream of `reader`'s file as it is (PCM goes into MOV and MKV, not MP4).
    public static func canHoldAudio(of reader: VideoFileReader, inContainer ext: String) -> Bool {
        reader.info.otherStreams.allSatisfy { $0.kind != .audio || bfv_container_can_hold("x." + ext, reader.handle, Int32($0.index)) != 0 }
    }

    private var handle: OpaquePointer?
    private let reader: VideoFileReader?
    private var committed = false

    /// A writer of `width` x `height` frames (upright) whose presentation times are in
    /// `timeBase`, with the colour properties to tag the video with. With `reader`, its other
    /// streams are copied as `options` says (create the writer before reading the first frame).
    /// Streams the container cannot hold: audio is an error (`.streamNotSupported`), subtitles
    /// and data are dropped with a warning; so is a subtitle track whose text places the
    /// recording (telemetry), unless the metadata policy keeps the location.
    public init(path: String, width: Int, height: Int, timeBase: VideoFrame.TimeBase, frameRate: VideoFrameRate? = nil,
                color: VideoColor = .unspecified, copyingStreamsOf reader: VideoFileReader? = nil,
                options: VideoWriteOptions = .init()) throws(VideoError) {
        let ext = (path as NSString).pathExtension.lowercased()
        guard Self.supportedExtensions.contains(ext) else { throw .unsupportedContainer(path: path, extension: ext) }
        guard width > 0, height > 0, width <= 1 << 14, height <= 1 << 14 else {
            throw .invalidArgument("\(path): cannot write \(width)x\(height) frames")
        }
        guard timeBase.numerator > 0, timeBase.denominator > 0 else {
            throw .invalidArgument("\(path): time base \(timeBase.numerator)/\(timeBase.denominator) is not positive")
        }
        let codec: VideoWriteOptions.Codec = options.codec != .automatic ? options.codec : ext == "webm" ? .vp9 : .h264
        let cCodec: BFVCodec = switch codec {
        case .hevc: BFV_CODEC_HEVC
        case .vp9: BFV_CODEC_VP9
        default: BFV_CODEC_H264
        }
        guard bfv_has_encoder(cCodec) != 0 else {
            throw .encode(path: path, reason: "this FFmpeg has no \(codec == .hevc ? "libx265" : codec == .vp9 ? "libvpx-vp9" : "libx264") encoder")
        }
        if ext == "webm" && codec != .vp9 {
            throw .invalidArgument("\(path): WebM files hold VP9 (or VP8, AV1) video, not \(codec.rawValue)")
        }

        // Which of the reader's streams go out.
        var copy: [Int] = [], warnings: [String] = []
        let (keep, keepLocation): (Bool, Bool) = switch options.metadata {
        case .strip: (false, false)
        case let .keep(location): (true, location)
        }
        let containerName = ext == "mkv" ? "Matroska" : ext == "webm" ? "WebM" : ext == "mov" ? "QuickTime" : "MP4"
        if let reader {
            for stream in reader.info.otherStreams {
                let name = "\(stream.kind.rawValue) stream \(stream.index) (\(stream.codec))"
                let fits = bfv_container_can_hold(path, reader.handle, Int32(stream.index))
                switch stream.kind {
                case .audio where options.copyAudio:
                    guard fits != 0 else {
                        throw .streamNotSupported(path: path, stream: stream.index, kind: "audio", codec: stream.codec, container: containerName)
                    }
                    copy.append(stream.index)
                case .subtitle where options.copySubtitles && !keepLocation
                        && bfv_stream_text_names_location(reader.path, Int32(stream.index), 8) == 1:
                    warnings.append("\(path): the input's \(name) is left out: its text places the recording (a drone's or dash camera's "
                                    + "telemetry; keep metadata with location to copy it)")
                case .subtitle where options.copySubtitles, .data where keepLocation:
                    if fits != 0 { copy.append(stream.index) } else {
                        warnings.append("\(path): the input's \(name) is left out: a \(containerName) file cannot hold it (.mkv can hold most)")
                    }
                case .audio, .subtitle: break  // left out as asked
                case .data:
                    warnings.append("\(path): the input's \(name) is left out: data streams can hold location (keep metadata with location to copy it)")
                case .attachedPicture:
                    warnings.append("\(path): the input's cover art (stream \(stream.index)) is left out: it may show a face")
                case .video:
                    warnings.append("\(path): the input's other \(name) is left out: only the redacted video is written")
                case .attachment, .unknown:
                    warnings.append("\(path): the input's \(name) is left out")
                }
            }
        }

        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let stem = url.deletingPathExtension().lastPathComponent
        let random = String(UInt32.random(in: .min ... .max), radix: 16)
        // The process id in the name: two processes writing one output never remove each other's file.
        let temporary = (folder as NSString).appendingPathComponent(".\(stem).partial-\(getpid())-\(random).\(url.pathExtension)")

        let frameRate = frameRate.flatMap { $0.numerator > 0 && $0.denominator > 0 ? $0 : nil }
        var status = BFV_OK, error = BFVError()
        let handle = temporary.withCString { cPath in
            path.withCString { cName in
                withOptionalCString(options.preset ?? (codec == .vp9 ? nil : VideoWriteOptions.defaultPreset)) { cPreset in
                    withOptionalCString(options.vp9Deadline) { cDeadline in
                        var config = BFVWriterConfig(
                            path: cPath, format_name: cName, width: Int32(width), height: Int32(height),
                            tb_num: timeBase.numerator, tb_den: timeBase.denominator,
                            rate_num: frameRate?.numerator ?? 0, rate_den: frameRate?.denominator ?? 0, codec: cCodec,
                            crf: Int32(clamping: options.quality ?? -1), preset: cPreset, cpu_used: Int32(clamping: options.vp9CPUUsed ?? -1),
                            deadline: cDeadline, threads: Int32(clamping: options.threads), color_range: color.range,
                            color_space: color.space, color_primaries: color.primaries, color_trc: color.transfer,
                            keep_metadata: keep ? 1 : 0, keep_location: keepLocation ? 1 : 0,
                            field_order: reader?.info.fieldOrder.code ?? 0)
                        let indexes = copy.map { Int32($0) }
                        return indexes.withUnsafeBufferPointer { list in
                            bfv_writer_open(&config, reader?.handle, list.baseAddress, Int32(list.count), &status, &error)
                        }
                    }
                }
            }
        }
        guard let handle else {
            unlink(temporary)
            switch status {
            case BFV_ENCODE, BFV_UNSUPPORTED: throw .encode(path: path, reason: error.reason)
            case BFV_IO: throw .io(path: path, reason: error.reason)
            case BFV_INVALID: throw .invalidArgument("\(path): \(error.reason)")
            default: throw .write(path: path, reason: error.reason)
            }
        }
        var encodedWidth: Int32 = 0, encodedHeight: Int32 = 0
        bfv_writer_size(handle, &encodedWidth, &encodedHeight)
        if Int(encodedWidth) != width || Int(encodedHeight) != height {
            warnings.append("\(path): \(codec.rawValue) needs an even size: the \(width)x\(height) video is written \(encodedWidth)x\(encodedHeight), without its last \(Int(encodedWidth) != width ? "column" : "")\(Int(encodedWidth) != width && Int(encodedHeight) != height ? " and " : "")\(Int(encodedHeight) != height ? "row" : "")")
        }
        (self.path, self.temporaryPath, self.width, self.height, self.codec) = (path, temporary, width, height, codec)
        (self.encodedWidth, self.encodedHeight) = (Int(encodedWidth), Int(encodedHeight))
        (self.handle, self.reader, self.copiedStreams, self.warnings) = (handle, reader, copy, warnings)
        reader?.outputPath = path
    }

    /// A writer for `reader`'s video: its upright size, time base, frame rate and colour, its
    /// other streams copied as `options` says.
    public convenience init(path: String, copying reader: VideoFileReader, options: VideoWriteOptions = .init()) throws(VideoError) {
        let info = reader.info
        var color = info.color
        if info.fullRange { color.range = 2 }
        try self.init(path: path, width: info.width, height: info.height, timeBase: info.timeBase, frameRate: info.frameRate,
                      color: color, copyingStreamsOf: reader, options: options)
    }

    deinit { cancel() }

    /// Encodes one frame (`.i420`, `.gray` or `.rgb`, of the writer's size) at its presentation
    /// time; times that do not increase are nudged forward by one tick of the encoder's time base.
    public func write(_ frame: VideoFrame) throws(VideoError) {
        guard let handle, !committed else { throw .invalidArgument("\(path): write after finish or cancel") }
        let format: Int32 = switch frame.format {
        case .i420: 0
        case .gray: 1
        case .rgb: 2
        default: -1
        }
        var error = BFVError()
        let status = frame.bytes.withUnsafeBufferPointer { bytes in
            bfv_writer_write_frame(handle, format, bytes.baseAddress, bytes.count, Int32(frame.width), Int32(frame.height),
                                   frame.fullRange ? 1 : 0, frame.presentationTime, frame.timeBase.numerator,
                                   frame.timeBase.denominator, &error)
        }
        switch status {
        case BFV_OK: framesWritten += 1
        case BFV_INVALID: throw .invalidArgument("\(path): \(error.reason)")
        case BFV_ENCODE: throw .encode(path: path, reason: error.reason)
        default: throw .write(path: path, reason: error.reason)
        }
    }

    /// Flushes the encoder, writes the trailer, syncs the file and moves it over the destination.
    /// After a failure nothing is left at the destination nor under the temporary name.
    public func finish() throws(VideoError) {
        guard let handle, !committed else { throw .invalidArgument("\(path): finish after finish or cancel") }
        var error = BFVError()
        var status = bfv_writer_finish(handle, &error)
        if status == BFV_OK { status = bfv_commit_file(temporaryPath, path, &error) }
        bfv_writer_close(handle)
        self.handle = nil
        guard status == BFV_OK else {
            unlink(temporaryPath)
            throw status == BFV_ENCODE ? .encode(path: path, reason: error.reason)
                : status == BFV_IO ? .io(path: path, reason: error.reason) : .write(path: path, reason: error.reason)
        }
        committed = true
    }

    /// Abandons the output: the temporary file is removed, the destination is left as it was.
    /// Safe to call more than once, and after `finish`.
    public func cancel() {
        guard let handle else { return }
        bfv_writer_close(handle)
        self.handle = nil
        if !committed { unlink(temporaryPath) }
    }
}

/// Calls `body` with a C string for `string`, or NULL.
private func withOptionalCString<T>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
