import BlazeFace
import InternalUtilities

// `blazeface redact --progress json`'s lines for one file, next to the results they report.

extension RedactedPhoto {
    /// The line for this photo (no newline): {"input":I,"output":O,"status":"done","faces":N}.
    public func jsonLine(input: String, output: String) -> String {
        var json = JSONWriter(capacity: 128)
        json.literal("{\"input\":")
        json.string(input)
        json.literal(",\"output\":")
        json.string(output)
        json.literal(",\"status\":\"done\",\"faces\":")
        json.integer(faces)
        json.literal("}")
        return json.text
    }
}

extension RedactedVideo {
    /// The line for this video once written (no newline; "-" named `<stdin>` and `<stdout>`):
    /// {"input","output","status":"done","frames","faces","lingering","before_found","regions"},
    /// then "truncated", "damaged" and "applied_masks" where they apply.
    public func jsonLine(input: String, output: String) -> String {
        var json = JSONWriter(capacity: 256)
        json.literal("{\"input\":")
        json.string(input == "-" ? "<stdin>" : input)
        json.literal(",\"output\":")
        json.string(output == "-" ? "<stdout>" : output)
        json.literal(",\"status\":\"done\"")
        for (key, value): (StaticString, Int) in [(",\"frames\":", frames), (",\"faces\":", facesMasked), (",\"lingering\":", lingeringMasks),
                                                  (",\"before_found\":", backfilledMasks), (",\"regions\":", regionsSearched)] {
            json.literal(key)
            json.integer(value)
        }
        if let truncation { json.literal(",\"truncated\":"); json.string(truncation) }
        if let damage { json.literal(",\"damaged\":"); json.string(damage) }
        if let appliedMasks { json.literal(",\"applied_masks\":"); json.integer(appliedMasks) }
        json.literal("}")
        return json.text
    }

    /// A video's progress line (no newline): {"input":I,"frames":N} and "of" when the total is known.
    public static func progressLine(input: String, frames: Int, of total: Int?) -> String {
        var json = JSONWriter(capacity: 96)
        json.literal("{\"input\":")
        json.string(input == "-" ? "<stdin>" : input)
        json.literal(",\"frames\":")
        json.integer(frames)
        if let total { json.literal(",\"of\":"); json.integer(total) }
        json.literal("}")
        return json.text
    }
}
