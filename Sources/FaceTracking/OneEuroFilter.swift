/// A one-euro filter over a vector of values (Casiez, Roussel, Vogel 2012), the filter MediaPipe's
/// LandmarksSmoothingCalculator uses (one_euro_filter.cc): an exponential smoother whose cutoff
/// rises with the signal's speed, so that it removes jitter at rest and lags little in motion.
struct OneEuroFilter: Sendable {
    let parameters: OneEuroParameters
    private var previous: [Float] = []
    private var derivative: [Float] = []
    private var lastTimestamp: Int?

    init(parameters: OneEuroParameters) { self.parameters = parameters }

    /// Filters `values` observed at `timestamp` (ms); `scale` converts them to the units the
    /// parameters are in (1 / face width). The first call returns its input.
    mutating func callAsFunction(_ values: [Float], timestamp: Int, scale: Float) -> [Float] {
        guard let last = lastTimestamp, timestamp > last, previous.count == values.count, scale.isFinite, scale > 0 else {
            previous = values
            derivative = [Float](repeating: 0, count: values.count)
            lastTimestamp = timestamp
            return values
        }
        let dt = Float(timestamp - last) / 1000
        var out = values
        for i in values.indices {
            let dx = (values[i] - previous[i]) * scale / dt
            derivative[i] += Self.alpha(cutoff: parameters.derivativeCutoff, dt: dt) * (dx - derivative[i])
            let cutoff = parameters.minCutoff + parameters.beta * abs(derivative[i])
            out[i] = previous[i] + Self.alpha(cutoff: cutoff, dt: dt) * (values[i] - previous[i])
        }
        previous = out
        lastTimestamp = timestamp
        return out
    }

    /// The smoothing factor of a first-order low-pass filter with `cutoff` Hz sampled every `dt` s.
    static func alpha(cutoff: Float, dt: Float) -> Float {
        let tau = 1 / (2 * Float.pi * cutoff)
        return 1 / (1 + tau / dt)
    }
}
