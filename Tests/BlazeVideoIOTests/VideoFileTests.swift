import Foundation
import Testing
@testable import BlazeVideoIO

@Suite struct VideoFileReaderTests {
    @Test func readsEachContainer() throws {
        let clips = try Media.get()
        for (path, codec) in [(clips.mp4, "h264"), (clips.mov, "h264"), (clips.mkv, "h264"), (clips.webm, "vp9")] {
            let reader = try VideoFileReader(path: path)
            #expect(reader.info.codec == codec, "\(path)")
            #expect(reader.info.width == 160 && reader.info.height == 120)
            #expect(reader.info.rotation == 0)
            #expect(reader.info.frameRate == VideoFrameRate(numerator: 25, denominator: 1))
            #expect(reader.info.otherStreams.map(\.kind) == [.audio])
            #expect(reader.info.bitDepth == 8 && reader.info.pixelFormat == "yuv420p")
            let frames = try readAll(reader)
            #expect(frames.count == 20, "\(path)")
            // MKV and WebM list no count: duration x rate, where the duration is the longest stream's.
            #expect((20...21).contains(reader.expectedFrameCount ?? 0), "\(path)")
            // Presentation times as stored, in the stream's time base.
            let stored = try Media.videoTimes(path)
            let ours = frames.map { Double($0.presentationTime) * Double($0.timeBase.numerator) / Double($0.timeBase.denominator) }
            #expect(zip(stored, ours).allSatisfy { abs($0 - $1) < 1e-3 }, "\(path): \(stored) vs \(ours)")
            #expect(frames.allSatisfy { $0.format == .i420 && $0.bytes.count == VideoFrame.byteCount(format: .i420, width: 160, height: 120) })
        }
    }

    /// Each frame says whether it holds two interlaced fields and which comes first (what the
    /// redactor searches: the first field alone); a frame turned upright by the reader does not.
    @Test func framesSayHowTheyWereScanned() throws {
        let clips = try Media.get()
        for (path, order) in [(clips.interlacedTop, VideoFrame.FieldOrder.topFieldFirst), (clips.interlacedBottom, .bottomFieldFirst),
                              (clips.mp4, .progressive), (clips.rotated90, .progressive)] {
            let frames = try readAll(try VideoFileReader(path: path))
            #expect(!frames.isEmpty && frames.allSatisfy { $0.fieldOrder == order }, "\(path): \(frames.map(\.fieldOrder))")
        }
    }

    @Test func readsFromMemory() throws {
        let clips = try Media.get()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clips.mkv)))
        let frames = try readAll(try VideoFileReader(bytes: bytes))
        #expect(frames.count == 20)
        #expect(try readAll(try VideoFileReader(path: clips.mkv)).map(\.bytes) == frames.map(\.bytes))
    }

    @Test func variableFrameRateComesOutAsStored() throws {
        let clips = try Media.get()
        let reader = try VideoFileReader(path: clips.vfr)
        let frames = try readAll(reader)
        let stored = try Media.videoTimes(clips.vfr)
        let tb = reader.info.timeBase
        #expect(frames.count == stored.count)
        let ours = frames.map { Double($0.presentationTime) * Double(tb.numerator) / Double(tb.denominator) }
        #expect(zip(stored, ours).allSatisfy { abs($0 - $1) < 1e-6 }, "\(stored) vs \(ours)")
        let gaps = Set(zip(ours.dropFirst(), ours).map { (($0 - $1) * 1000).rounded() })
        #expect(gaps.count >= 2, "\(gaps)")
    }

    @Test func solidColourHasBT601Values() throws {
        let clips = try Media.get()
        // 0x3366CC in BT.601 limited range: Y 100.5, U 180.4, V 98.3.
        for path in [clips.solid8, clips.solid10] {
            let reader = try VideoFileReader(path: path)
            #expect(reader.info.bitDepth == (path == clips.solid8 ? 8 : 10))
            let frame = try #require(try reader.nextFrame())
            let (w, h) = (frame.width, frame.height)
            let chroma = (w / 2) * (h / 2)
            let y = frame.bytes[0..<(w * h)], u = frame.bytes[(w * h)..<(w * h + chroma)], v = frame.bytes[(w * h + chroma)...]
            #expect(y.allSatisfy { abs(Int($0) - 100) <= 2 }, "\(path): Y \(y.first!)")
            #expect(u.allSatisfy { abs(Int($0) - 180) <= 2 }, "\(path): U \(u.first!)")
            #expect(v.allSatisfy { abs(Int($0) - 98) <= 2 }, "\(path): V \(v.first!)")
            #expect(!frame.fullRange)
        }
    }

    @Test(arguments: [90, 180, 270])
    func rotationTurnsFramesUprightAsFFmpegDoes(angle: Int) throws {
        let clips = try Media.get()
        let path = angle == 90 ? clips.rotated90 : angle == 180 ? clips.rotated180 : clips.rotated270
        let reader = try VideoFileReader(path: path)
        // ffprobe's rotation is counter-clockwise; the reader's turns clockwise to upright.
        #expect(reader.info.rotation == (360 - angle) % 360)
        #expect(reader.info.storedWidth == 161 && reader.info.storedHeight == 121)
        let quarter = angle != 180
        #expect(reader.info.width == (quarter ? 121 : 161) && reader.info.height == (quarter ? 161 : 121))
        let ours = try readAll(reader).flatMap(\.bytes)
        let theirs = try Media.rawYUV(path)
        #expect(ours.count == theirs.count)
        #expect(ours == theirs)

        let stored = try VideoFileReader(path: path, options: VideoReadOptions(appliesRotation: false))
        #expect(stored.info.width == 161 && stored.info.height == 121 && stored.info.rotation == reader.info.rotation)
        #expect(try stored.nextFrame()?.width == 161)
    }

    @Test func truncatedFilesAreErrors() throws {
        let clips = try Media.get()
        // Without +faststart the index is at the end: the cut file has none.
        do {
            _ = try VideoFileReader(path: clips.cutPlain)
            Issue.record("a cut MP4 without its moov box opened")
        } catch {
            #expect(error.description.contains("moov atom not found"), "\(error)")
            #expect(error.description.hasPrefix(clips.cutPlain))
        }
        // With +faststart the index survives and lists frames the file no longer holds.
        let reader = try VideoFileReader(path: clips.cutFaststart)
        #expect(reader.expectedFrameCount == 50)
        do {
            _ = try readAll(reader)
            Issue.record("a cut MP4 read to its end without an error")
        } catch {
            #expect(error.description.hasPrefix(clips.cutFaststart), "\(error)")
            print("cut +faststart MP4: \(error)")
        }
    }

    @Test func probeAnswersByContent() throws {
        let clips = try Media.get()
        for path in [clips.mp4, clips.mov, clips.mkv, clips.webm, clips.rotated90] { #expect(VideoFileReader.probe(path: path), "\(path)") }
        // The garbage is named .mp4; the PNG is a picture, not a video.
        for path in [clips.png, clips.garbage, clips.folder + "/missing.mp4", clips.folder] {
            #expect(!VideoFileReader.probe(path: path), "\(path)")
        }
    }

    @Test func errorsNameTheFile() throws {
        let clips = try Media.get()
        #expect(throws: VideoError.self) { try VideoFileReader(path: clips.garbage) }
        do { _ = try VideoFileReader(path: clips.garbage) } catch {
            #expect(error.description.hasPrefix("\(clips.garbage): not a video FFmpeg can read"), "\(error)")
        }
        do { _ = try VideoFileReader(path: clips.folder + "/missing.mp4") } catch {
            #expect(error == .io(path: clips.folder + "/missing.mp4", reason: "No such file or directory"), "\(error)")
        }
        do { _ = try VideoFileReader(path: clips.mp4, options: VideoReadOptions(maxSide: 100)) } catch {
            #expect(error == .tooLarge(path: clips.mp4, width: 160, height: 120, maxSide: 100, maxPixels: 1 << 26), "\(error)")
        }
        #expect(throws: VideoError.self) { try VideoFileReader(bytes: Array("not a video at all".utf8)) }
        #expect(throws: VideoError.self) { try VideoFileReader(bytes: []) }
    }
}

@Suite struct VideoFileWriterTests {
    /// Interlaced H.264 is written interlaced, in the input's field order (players deinterlace
    /// it as they did the input); a progressive input stays progressive.
    @Test func interlacedInputStaysInterlaced() throws {
        let clips = try Media.get()
        for (input, order) in [(clips.interlacedTop, "tt"), (clips.interlacedBottom, "bb"), (clips.mp4, "progressive")] {
            #expect(try VideoFileReader(path: input).info.fieldOrder
                    == (order == "tt" ? .topFieldFirst : order == "bb" ? .bottomFieldFirst : .progressive))
            let output = clips.output("fields.mp4")
            _ = try transcode(input, to: output)
            #expect(try Media.videoStream(output)["field_order"] as? String == order, "\(input)")
        }
    }

    /// x264 codes fields only at heights divisible by 4; MPEG-2 (DVD, broadcast) has no such
    /// rule. An interlaced 160x90 input is written, coded progressive, not refused.
    @Test func interlacedInputAtAnyHeightIsWritten() throws {
        let clips = try Media.get()
        let input = clips.output("fields90.mpg")
        try Media.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=0.4", "-vf", "setfield=tff",
                          "-c:v", "mpeg2video", "-flags", "+ildct+ilme", "-top", "1", input])
        #expect(try VideoFileReader(path: input).info.fieldOrder == .topFieldFirst)
        let output = clips.output("fields90.mp4")
        let writer = try transcode(input, to: output)
        #expect(writer.framesWritten == 10)
        let stream = try Media.videoStream(output)
        #expect(stream["height"] as? Int == 90)
        #expect(stream["field_order"] as? String == "progressive")
    }

    /// Each container: same frame count, same times, audio bit-identical, nothing left behind.
    @Test func copiesTimesAndAudio() throws {
        let clips = try Media.get()
        for (input, ext) in [(clips.mp4, "mp4"), (clips.mov, "mov"), (clips.mkv, "mkv"), (clips.webm, "webm"), (clips.mp4, "m4v")] {
            let output = clips.output("out.\(ext)")
            let writer = try transcode(input, to: output)
            #expect(writer.framesWritten == 20)
            #expect(writer.copiedStreams == [1])
            #expect(writer.warnings.isEmpty)
            let stream = try Media.videoStream(output)
            #expect(stream["codec_name"] as? String == (ext == "webm" ? "vp9" : "h264"))
            #expect(stream["pix_fmt"] as? String == "yuv420p")
            let (stored, written) = (try Media.videoTimes(input), try Media.videoTimes(output))
            #expect(stored.count == 20 && written.count == 20, "\(output)")
            #expect(zip(stored, written).allSatisfy { abs($0 - $1) < 1.5e-3 }, "\(output): \(stored) vs \(written)")
            #expect(try Media.audioMD5(input) == Media.audioMD5(output), "\(output)")
            let duration = { (path: String) throws -> Double in Double(try Media.videoStream(path)["duration"] as? String ?? "") ?? -1 }
            #expect(abs(try duration(input) - duration(output)) < 1.5e-3, "\(output)")
        }
        for ext in ["mp4", "mov", "mkv", "webm", "m4v"] { #expect(try clips.partials(of: clips.output("out.\(ext)")).isEmpty) }
    }

    @Test func variableFrameRateKeepsItsTimes() throws {
        let clips = try Media.get()
        let output = clips.output("vfr.mp4")
        try transcode(clips.vfr, to: output)
        let (stored, written) = (try Media.videoTimes(clips.vfr), try Media.videoTimes(output))
        #expect(stored.count == written.count)
        #expect(zip(stored, written).allSatisfy { abs($0 - $1) < 1e-4 }, "\(stored) vs \(written)")
    }

    @Test func rotatedInputGivesUprightOutputWithoutMatrix() throws {
        let clips = try Media.get()
        // H.264 needs even sizes (the last column goes), VP9 keeps 121x161.
        for (name, size) in [("upright.mp4", (120, 160)), ("upright.webm", (121, 161))] {
            let output = clips.output(name)
            let writer = try transcode(clips.rotated90, to: output)
            #expect(writer.width == 121 && writer.height == 161 && (writer.encodedWidth, writer.encodedHeight) == size)
            #expect(writer.warnings.count == (name.hasSuffix("mp4") ? 1 : 0), "\(writer.warnings)")
            let stream = try Media.videoStream(output)
            #expect(stream["width"] as? Int == size.0 && stream["height"] as? Int == size.1)
            #expect(stream["side_data_list"] == nil, "\(stream)")
            #expect((stream["tags"] as? [String: String])?["rotate"] == nil)
            #expect(try Media.videoTimes(output).count == 10)
        }
    }

    @Test func metadataPolicy() throws {
        let clips = try Media.get()
        let input = try Media.formatTags(clips.location)
        #expect(input["location"] != nil && input["title"] == "Holiday")

        let stripped = clips.output("strip.mp4")
        try transcode(clips.location, to: stripped)
        let none = try Media.formatTags(stripped)
        #expect(none.keys.allSatisfy { !$0.lowercased().contains("location") } && none["title"] == nil && none["creation_time"] == nil, "\(none)")

        let kept = clips.output("keep.mp4")
        try transcode(clips.location, to: kept, options: VideoWriteOptions(metadata: .keep(location: false)))
        let some = try Media.formatTags(kept)
        #expect(some["title"] == "Holiday" && some["com.apple.quicktime.make"] == "Apple", "\(some)")
        #expect(some.keys.allSatisfy { !$0.lowercased().contains("location") }, "\(some)")

        let all = clips.output("keep-location.mp4")
        try transcode(clips.location, to: all, options: VideoWriteOptions(metadata: .keep(location: true)))
        let every = try Media.formatTags(all)
        #expect(every["location"] == "+48.8583+002.2945/", "\(every)")
        #expect(every["com.apple.quicktime.location.ISO6709"] == "+48.8583+002.2945+035.000/", "\(every)")
    }

    @Test func audioTheContainerCannotHoldIsAnError() throws {
        let clips = try Media.get()
        let output = clips.output("aac.webm")
        let reader = try VideoFileReader(path: clips.mp4)
        #expect(throws: VideoError.streamNotSupported(path: output, stream: 1, kind: "audio", codec: "aac", container: "WebM")) {
            try VideoFileWriter(path: output, copying: reader)
        }
        // Without audio it goes.
        let writer = try VideoFileWriter(path: output, copying: reader, options: VideoWriteOptions(copyAudio: false))
        #expect(writer.copiedStreams.isEmpty)
        writer.cancel()
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try clips.partials(of: output).isEmpty)
    }

    @Test func unsupportedExtensionIsRefused() throws {
        let clips = try Media.get()
        for name in ["out.avi", "out.gif", "out"] {
            let output = clips.output(name)
            #expect(throws: VideoError.self) {
                try VideoFileWriter(path: output, width: 64, height: 48, timeBase: .milliseconds)
            }
            do { _ = try VideoFileWriter(path: output, width: 64, height: 48, timeBase: .milliseconds) } catch {
                #expect(error.description.contains(".mp4, .m4v, .mov, .mkv or .webm"), "\(error)")
            }
        }
    }

    @Test func cancelAndDropLeaveNothing() throws {
        let clips = try Media.get()
        let output = clips.output("cancelled.mp4")
        let reader = try VideoFileReader(path: clips.mp4)
        let writer = try VideoFileWriter(path: output, copying: reader)
        for _ in 0..<5 { try writer.write(try #require(try reader.nextFrame())) }
        #expect(FileManager.default.fileExists(atPath: writer.temporaryPath))
        #expect((writer.temporaryPath as NSString).lastPathComponent.hasPrefix("."))
        writer.cancel()
        writer.cancel()
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(!FileManager.default.fileExists(atPath: writer.temporaryPath))

        let dropped = clips.output("dropped.mp4")
        do {
            let writer = try VideoFileWriter(path: dropped, width: 160, height: 120, timeBase: .milliseconds)
            try writer.write(try VideoFrame(format: .i420, width: 160, height: 120,
                                            bytes: [UInt8](repeating: 90, count: VideoFrame.byteCount(format: .i420, width: 160, height: 120)),
                                            presentationTime: 0, timeBase: .milliseconds))
        }
        #expect(!FileManager.default.fileExists(atPath: dropped))
        #expect(try clips.partials(of: output).isEmpty && clips.partials(of: dropped).isEmpty)
    }

    @Test func truncatedInputLeavesNothing() throws {
        let clips = try Media.get()
        let output = clips.output("from-cut.mp4")
        #expect(throws: VideoError.self) { try transcode(clips.cutFaststart, to: output) }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try clips.partials(of: output).isEmpty)
    }

    @Test func writesFramesWithoutAReader() throws {
        let clips = try Media.get()
        let output = clips.output("gray.mkv")
        let writer = try VideoFileWriter(path: output, width: 64, height: 48, timeBase: .milliseconds,
                                         frameRate: VideoFrameRate(numerator: 10, denominator: 1))
        for index in 0..<10 {
            let gray = try VideoFrame(format: .gray, width: 64, height: 48, bytes: [UInt8](repeating: UInt8(20 * index), count: 64 * 48),
                                      presentationTime: Int64(100 * index), timeBase: .milliseconds)
            try writer.write(gray)
        }
        try writer.finish()
        #expect(throws: VideoError.self) { try writer.finish() }
        let frames = try readAll(try VideoFileReader(path: output))
        #expect(frames.count == 10)
        #expect(frames.map(\.presentationTime) == (0..<10).map { Int64(100 * $0) })
        #expect(abs(Int(frames[5].bytes[0]) - 100) <= 3)
        #expect(try Media.streams(output).count == 1)
    }
}

@Suite struct VideoSubtitleTests {
    /// SubRip goes into MKV as is; MP4 cannot hold it: dropped with a warning, the video written.
    @Test func subtitlesCopiedOrDroppedWithAWarning() throws {
        let clips = try Media.get()
        let srt = clips.output("subs.srt"), input = clips.output("subs.mkv")
        try "1\n00:00:00,000 --> 00:00:00,500\nHello\n".write(toFile: srt, atomically: true, encoding: .utf8)
        try Media.ffmpeg(["-i", clips.mp4, "-i", srt, "-map", "0", "-map", "1", "-c", "copy", "-metadata:s:s:0", "language=fra", input])
        let mkv = clips.output("subs-out.mkv")
        let kept = try transcode(input, to: mkv)
        #expect(kept.copiedStreams == [1, 2] && kept.warnings.isEmpty)
        let streams = try Media.streams(mkv)
        #expect(streams.map { $0["codec_type"] as? String } == ["video", "audio", "subtitle"])
        #expect((streams[2]["tags"] as? [String: String])?["language"] == "fra")
        let mp4 = clips.output("subs-out.mp4")
        let dropped = try transcode(input, to: mp4)
        #expect(dropped.copiedStreams == [1] && dropped.warnings.count == 1, "\(dropped.warnings)")
        #expect(try Media.streams(mp4).count == 2)
    }

    /// Drones and dash cameras write their telemetry, location included, as a subtitle track:
    /// left out unless the location is kept. Dialogue, even about a GPS, is copied.
    @Test func telemetrySubtitlesGoWithTheLocation() throws {
        let clips = try Media.get()
        let cues = [
            "dji-old": "HOME(149.0251,-20.2532) 2017.08.05 14:11:51\nGPS(149.0251,-20.2533,16) BAROMETER:1.9",
            "dji-mini": "<font size=\"28\">FrameCnt: 1, DiffTime: 33ms\n[iso : 100] [latitude: 47.371302] [longitude: 8.540213] [altitude: 420.0]</font>",
            "dashcam": "2024/05/01 08:12:44 N37.7749 W122.4194 52km/h",
            "dialogue": "Turn the GPS off, it is 3.5 miles to the house.",
        ]
        for (name, cue) in cues {
            let srt = clips.output("\(name).srt")
            try "1\n00:00:00,000 --> 00:00:00,400\n\(cue)\n\n2\n00:00:00,400 --> 00:00:00,800\n\(cue)\n".write(toFile: srt, atomically: true, encoding: .utf8)
            for ext in ["mp4", "mkv"] {
                let input = clips.output("\(name)-in.\(ext)")
                try Media.ffmpeg(["-i", clips.mp4, "-i", srt, "-map", "0", "-map", "1", "-c:v", "copy", "-c:a", "copy",
                                  "-c:s", ext == "mp4" ? "mov_text" : "srt", input])
                let places = name != "dialogue"
                for metadata in [VideoWriteOptions.MetadataPolicy.strip, .keep(location: false), .keep(location: true)] {
                    let output = clips.output("\(name)-out.\(ext)")
                    let writer = try transcode(input, to: output, options: VideoWriteOptions(metadata: metadata))
                    let kept = !places || metadata == .keep(location: true)
                    #expect(writer.copiedStreams == (kept ? [1, 2] : [1]), "\(name).\(ext) \(metadata)")
                    #expect(writer.warnings.count == (kept ? 0 : 1), "\(writer.warnings)")
                    #expect(try Media.streams(output).count == (kept ? 3 : 2))
                }
            }
        }
    }
}
