/// A 4x4 transformation matrix in float32, row-major, as MediaPipe's `MatrixData` of the
/// facial transformation matrix: the upper 3x3 is scale × rotation, the last column the translation (cm).
public struct TransformMatrix: Equatable, Sendable {
    /// The 16 entries, row by row.
    public var entries: [Float]

    /// A matrix from 16 row-major entries; nil for any other count.
    public init?(rowMajor entries: [Float]) {
        guard entries.count == 16 else { return nil }
        self.entries = entries
    }

    init(checked entries: [Float]) { self.entries = entries }

    /// The identity transform.
    public static let identity = TransformMatrix(checked: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])

    /// The entry at `row`, `column` (both 0...3).
    public subscript(row: Int, column: Int) -> Float {
        get { entries[4 * row + column] }
        set { entries[4 * row + column] = newValue }
    }

    /// The rows, for printing as [[4x4]].
    public var rows: [[Float]] { (0..<4).map { Array(entries[4 * $0..<4 * $0 + 4]) } }
}
