import BlazeFace
import FaceRedaction
import Foundation
import Testing

/// The review page's choice of moments, on a masks file written by hand: each kind of moment
/// flagged on the frame where it starts, ranked most urgent first, cut at the limit; the page
/// embeds the file and the thumbnails, and nothing that would reach a network.
@Suite struct ReviewPageTests {
    /// Ten frames: track 1 detected throughout (a low score on frame 3); track 3 masked before it
    /// was found (frames 1-2, at the left edge) then detected; track 2 appears mid-picture on
    /// frame 4, is held while lost on frames 6-7, and is last seen on frame 8.
    static func masksFile() throws -> MasksFile {
        func mask(_ id: Int, _ reason: String, _ box: [Double], score: Double? = nil) -> String {
            "{\"trackingId\":\(id),\"reason\":\"\(reason)\"" + (score.map { ",\"score\":\($0)" } ?? "")
                + ",\"box\":[0,0,0,0],\"relativeBox\":[\(box.map { "\($0)" }.joined(separator: ","))]}"
        }
        var lines = ["{\"record\":\"header\",\"format\":\"blazeface-masks\",\"version\":1,\"input\":{\"path\":\"x.mp4\"},\"width\":100,"
                     + "\"height\":100,\"mode\":\"blur\",\"shape\":\"ellipse\",\"maskScale\":1.3,\"settings\":\"\",\"tool\":\"test\"}"]
        for f in 0..<10 {
            var masks = [mask(1, "detected", [0.1, 0.1, 0.1, 0.1], score: f == 3 ? 0.5 : 0.9)]
            if f >= 1 { masks.append(mask(3, f < 3 ? "before-found" : "detected", [0, 0.5, 0.1, 0.1], score: f < 3 ? nil : 0.9)) }
            if (4...8).contains(f) { masks.append(mask(2, (6...7).contains(f) ? "tracked" : "detected", [0.4, 0.4, 0.1, 0.1], score: 0.9)) }
            lines.append("{\"frame\":\(f),\"timestampMs\":\(40 * f),\"masks\":[\(masks.joined(separator: ","))]}")
        }
        lines.append("{\"record\":\"end\",\"frames\":10,\"masks\":0}")
        return try MasksFile(data: Array((lines.joined(separator: "\n") + "\n").utf8))
    }

    @Test func momentsAreFlaggedWhereTheyStartMostUrgentFirst() throws {
        let moments = ReviewPage.moments(in: try Self.masksFile(), sampleEvery: 5)
        #expect(moments.map(\.frame) == [6, 1, 3, 4, 8, 9, 0, 5])
        #expect(moments.map { $0.why[0] } == [.held, .beforeFound, .lowScore, .appears, .disappears, .countChanges, .sample, .sample])
        #expect(moments[3].why == [.appears, .countChanges], "frame 4: track 2 appears, and the count goes from 2 to 3")
        #expect(ReviewPage.moments(in: try Self.masksFile(), sampleEvery: 5, limit: 3).map(\.frame) == [6, 1, 3])
    }

    @Test func thePageEmbedsEverythingAndFetchesNothing() {
        let text = "{\"record\":\"header\"}\n{\"frame\":0,\"masks\":[],\"note\":\"</script><script>alert(1)</script>\"}\n"
        let page = ReviewPage.html(masksText: text, moments: [.init(frame: 0, why: [.sample])],
                                   thumbnails: [0: .init(bytes: [1, 2, 3], mediaType: "image/jpeg")], inputName: "a<b>.mp4")
        #expect(page.contains("content=\"default-src 'none'; img-src data:;"))
        #expect(page.contains("data:image/jpeg;base64,AQID"))
        #expect(page.contains("Review: a&lt;b&gt;.mp4"))
        // The data cannot close its script element: "</" is written "<\/".
        #expect(page.components(separatedBy: "</script>").count - 1 == 2, "the data's and the program's closing tags only")
        #expect(!page.contains("src=\"http") && !page.contains("href=\"http") && !page.contains("@import"))
    }
}
