import BlazeImageIO
import BlazeImage
import Foundation

/// What `detect` was asked to read: files, folders expanded recursively, or `-` for stdin.
enum InputList {
    /// One image to read: a path, or standard input.
    enum Item: Equatable {
        case file(String)
        case standardInput

        var name: String {
            switch self {
            case .file(let path): path
            case .standardInput: "-"
            }
        }
    }

    /// The arguments in order, each folder replaced by the images inside it (recursively,
    /// sorted by name at each level, depth first). In folders, hidden entries and files whose
    /// first bytes are not PNG, JPEG, HEIC, PPM or PGM are skipped; a file named on the command line
    /// is always read (and reported if it is not an image). Symbolic links to folders are not followed.
    static func expand(_ arguments: [String]) -> [Item] {
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
        let head = (try? handle.read(upToCount: 8)) ?? nil
        return head.map { ImageFormat(sniffing: [UInt8]($0)) != nil } ?? false
    }
}
