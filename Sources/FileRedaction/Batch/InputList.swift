import BlazeImageIO
import BlazeImage
import Foundation
import MediaFiles

/// The pictures a detection run reads (`blazeface detect`, `analyze`, `landmarks`): files,
/// folders expanded recursively, `-` for stdin, and the lines of a list file, kept to one shard.
///
/// ```swift
/// let shard = try Shard.resolve(flag: nil, count: nil, environment: ProcessInfo.processInfo.environment)
/// for item in InputList.sharded(["photos/"], shard: shard) { ... }
/// ```
public enum InputList {
    /// One picture to read: a path, or standard input.
    public enum Item: Equatable, Sendable {
        case file(String)
        case standardInput

        /// The path, or "-".
        public var name: String {
            switch self {
            case .file(let path): path
            case .standardInput: "-"
            }
        }

        /// Whether this is a file holding a video (by its content: `MediaKind.video` or `.y4m`),
        /// which a detection run reads frame by frame, not as one picture.
        public var isVideo: Bool {
            guard case .file(let path) = self, let kind = try? MediaKind.of(path) else { return false }
            return kind == .video || kind == .y4m
        }
    }

    /// The arguments in order, each folder replaced by the images inside it (recursively,
    /// sorted by name at each level, depth first). In folders, hidden entries and files whose
    /// first bytes are not PNG, JPEG, HEIC, PPM or PGM are skipped; a file named on the command line
    /// is always read (and reported if it is not an image). Symbolic links to folders are not followed.
    public static func expand(_ arguments: [String]) -> [Item] {
        var items: [Item] = []
        for argument in arguments {
            if argument == "-" { items.append(.standardInput); continue }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder), isFolder.boolValue {
                collect(folder: argument, into: &items)
            } else {
                items.append(.file(argument))
            }
        }
        return items
    }

    private static func collect(folder: String, into items: inout [Item]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) where !name.hasPrefix(".") {
            let path = prefix + name
            guard let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType else { continue }
            if type == .typeDirectory {
                collect(folder: path, into: &items)
            } else if type == .typeRegular || type == .typeSymbolicLink, looksLikeImage(path) {
                items.append(.file(path))
            }
        }
    }

    /// Whether the file's first bytes are a known image signature.
    private static func looksLikeImage(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64)) ?? nil   // HEIF's brands lie past byte 8, WebP's form at 8...11
        return head.map { ImageFormat(sniffing: [UInt8]($0)) != nil } ?? false
    }

    /// `expand`'s items, each with its shard key: its path relative to the folder argument it
    /// was found in, or the argument itself for a file named on its own ("-" for stdin).
    public static func expandKeyed(_ arguments: [String]) -> [(item: Item, key: String)] {
        var out: [(Item, String)] = []
        for argument in arguments {
            var isFolder: ObjCBool = false
            if argument != "-", FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder), isFolder.boolValue {
                let prefix = argument.hasSuffix("/") ? argument : argument + "/"
                for item in expand([argument]) {
                    let name = item.name
                    out.append((item, name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : name))
                }
            } else {
                out += expand([argument]).map { ($0, $0.name) }
            }
        }
        return out
    }

    /// The items of `arguments` (expanded) that belong to `shard`, by their keys.
    public static func sharded(_ arguments: [String], shard: Shard) -> [Item] {
        expandKeyed(arguments).filter { shard.contains(key: $0.key) }.map(\.item)
    }

    /// The inputs a list file names, one path per line (blank lines and lines starting with #
    /// left out); nil when the file cannot be read.
    public static func lines(ofListAt path: String) -> [String]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }
    }

    /// Standard input's bytes when `items` name it (read once for the run, at most 2 GiB); nil
    /// when they do not.
    public static func standardInput(for items: [Item]) -> Result<[UInt8], ImageError>? {
        items.contains(.standardInput) ? readStandardInput() : nil
    }

    private static func readStandardInput() -> Result<[UInt8], ImageError> {
        var bytes: [UInt8] = []
        while let chunk = try? FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
            bytes.append(contentsOf: chunk)
            if bytes.count > 1 << 31 { return .failure(.io(path: "-", reason: "more than \(1 << 31) bytes on stdin, not read")) }
        }
        return .success(bytes)
    }
}

extension InputList.Item {
    /// The picture this item names (any format `Pictures` reads), turned upright by its EXIF
    /// orientation if `upright`; standard input's from `standardInput`, the bytes read once
    /// (`InputList.standardInput(for:)`).
    public func picture(upright: Bool, standardInput: Result<[UInt8], ImageError>?) throws(ImageError) -> RGBImage {
        switch self {
        case .file(let path): try Pictures.read(contentsOf: path, upright: upright)
        case .standardInput: try Pictures.read(data: try (standardInput ?? .success([])).get(), upright: upright)
        }
    }

    /// What went wrong reading this item, as a message that names it (standard input's errors
    /// name nothing, so theirs start "-: ").
    public func message(for error: ImageError) -> String {
        self == .standardInput && !error.description.hasPrefix("-: ") ? "-: \(error.description)" : error.description
    }
}
