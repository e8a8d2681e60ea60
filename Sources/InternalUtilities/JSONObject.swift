/// One JSON object written field by field with `JSONWriter`, for the small reports (`track
/// --compare`, the `bench*` commands): fields in the order given, numbers as their shortest
/// decimal, strings escaped, a timing as `{"median_us":M,"min_us":N}`.
package struct JSONObject {
    private var json = JSONWriter(capacity: 256)
    private var empty = true

    package init() { json.byte("{") }

    private mutating func key(_ name: String) {
        if !empty { json.byte(",") }
        empty = false
        json.string(name)
        json.byte(":")
    }

    package mutating func field(_ name: String, _ value: Int) { key(name); json.integer(value) }
    package mutating func field(_ name: String, _ value: Double) { key(name); json.number(value) }
    package mutating func field(_ name: String, _ value: String) { key(name); json.string(value) }
    /// A timing in microseconds: `{"median_us":M,"min_us":N}`.
    package mutating func field(_ name: String, _ timing: (median: Double, min: Double)) {
        object(name) { $0.field("median_us", timing.median); $0.field("min_us", timing.min) }
    }
    /// A nested object, its fields written by `body`.
    package mutating func object(_ name: String, _ body: (inout JSONObject) -> Void) {
        key(name)
        var inner = JSONObject()
        body(&inner)
        json.write(inner.text)
    }

    /// The object, closed.
    package var text: String { json.text + "}" }
}
