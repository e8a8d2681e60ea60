@_exported import BlazeImage

extension ImageFormat {
    /// The format whose signature `bytes` start with: PNG's 8-byte signature, JPEG's SOI
    /// marker (FF D8 FF), or a Netpbm magic number P1...P6 followed by white space; nil otherwise.
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(8))
        if head == [137, 80, 78, 71, 13, 10, 26, 10] {
            self = .png
        } else if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF {
            self = .jpeg
        } else if head.count >= 3, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(head[1]),
                  PNM.isWhitespace(head[2]) {
            self = .pnm
        } else {
            return nil
        }
    }
}
