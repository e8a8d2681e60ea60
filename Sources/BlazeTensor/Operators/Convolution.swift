/// CONV_2D: a 2-D convolution with bias and a fused activation (TFLite's conv.cc semantics).
public struct Conv2D: TensorOperator {
    public let outputChannels: Int, inputChannels: Int
    public let kernelH: Int, kernelW: Int
    public let strideH: Int, strideW: Int
    public let padding: Padding
    public let activation: Activation
    /// Weights packed once, at load, as HWIO: the layout the kernel streams.
    let weightsHWIO: [Float]
    let bias: [Float]

    /// - Parameter weights: TFLite's OHWI layout, `[outputChannels, kh, kw, inputChannels]`.
    public init(weights: Tensor, bias: Tensor?, strideH: Int, strideW: Int,
                padding: Padding, activation: Activation) throws(TensorError) {
        guard weights.shape.rank == 4 else {
            throw .shapeMismatch("CONV_2D weights must be OHWI, got \(weights.shape)")
        }
        let (o, kh, kw, i) = (weights.shape[0], weights.shape[1], weights.shape[2], weights.shape[3])
        guard strideH > 0, strideW > 0 else { throw .invalidAttribute("CONV_2D stride must be positive") }
        if let bias, bias.shape.count != o {
            throw .shapeMismatch("CONV_2D bias has \(bias.shape.count) values for \(o) output channels")
        }
        var packed = [Float](repeating: 0, count: weights.scalars.count)
        for oc in 0..<o { for y in 0..<kh { for x in 0..<kw { for ic in 0..<i {
            packed[((y * kw + x) * i + ic) * o + oc] = weights.scalars[((oc * kh + y) * kw + x) * i + ic]
        } } } }
        (outputChannels, inputChannels, kernelH, kernelW) = (o, i, kh, kw)
        (self.strideH, self.strideW, self.padding, self.activation) = (strideH, strideW, padding, activation)
        weightsHWIO = packed
        self.bias = bias?.scalars ?? [Float](repeating: 0, count: o)
    }

    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try [geometry(inputs).output.shape]
    }

    func geometry(_ inputs: [Shape]) throws(TensorError) -> WindowGeometry {
        try requireInputs(inputs, 1, "CONV_2D")
        let x = try requireNHWC(inputs[0], "CONV_2D")
        guard x.c == inputChannels else {
            throw .shapeMismatch("CONV_2D expects \(inputChannels) input channels, got \(inputs[0])")
        }
        return try .make(input: x, outputChannels: outputChannels, kernelH: kernelH, kernelW: kernelW,
                         strideH: strideH, strideW: strideW, padding: padding)
    }

    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> () -> Void {
        let g = try geometry(shapes)
        let (x, y, act) = (inputs[0], outputs[0], activation)
        let weights = weightsHWIO, bias = bias
        return {
            weights.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    f32Conv2DReference(g, input: x, weightsHWIO: w.baseAddress!, bias: b.baseAddress!,
                                       activation: act, output: y)
                }
            }
        }
    }
}

/// DEPTHWISE_CONV_2D with depth multiplier 1: one 2-D filter per channel, bias, activation.
public struct DepthwiseConv2D: TensorOperator {
    public let channels: Int
    public let kernelH: Int, kernelW: Int
    public let strideH: Int, strideW: Int
    public let padding: Padding
    public let activation: Activation
    /// Weights as HWC; TFLite's `[1, kh, kw, c]` is already that layout.
    let weightsHWC: [Float]
    let bias: [Float]

    /// - Parameter weights: TFLite's layout, `[1, kh, kw, channels]`.
    public init(weights: Tensor, bias: Tensor?, strideH: Int, strideW: Int,
                padding: Padding, activation: Activation) throws(TensorError) {
        guard weights.shape.rank == 4, weights.shape[0] == 1 else {
            throw .shapeMismatch("DEPTHWISE_CONV_2D weights must be [1, kh, kw, c], got \(weights.shape)")
        }
        let (kh, kw, c) = (weights.shape[1], weights.shape[2], weights.shape[3])
        guard strideH > 0, strideW > 0 else { throw .invalidAttribute("DEPTHWISE_CONV_2D stride must be positive") }
        if let bias, bias.shape.count != c {
            throw .shapeMismatch("DEPTHWISE_CONV_2D bias has \(bias.shape.count) values for \(c) channels")
        }
        (channels, kernelH, kernelW) = (c, kh, kw)
        (self.strideH, self.strideW, self.padding, self.activation) = (strideH, strideW, padding, activation)
        weightsHWC = weights.scalars
        self.bias = bias?.scalars ?? [Float](repeating: 0, count: c)
    }

    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try [geometry(inputs).output.shape]
    }

    func geometry(_ inputs: [Shape]) throws(TensorError) -> WindowGeometry {
        try requireInputs(inputs, 1, "DEPTHWISE_CONV_2D")
        let x = try requireNHWC(inputs[0], "DEPTHWISE_CONV_2D")
        guard x.c == channels else {
            throw .shapeMismatch("DEPTHWISE_CONV_2D expects \(channels) channels, got \(inputs[0]) (depth multiplier 1 only)")
        }
        return try .make(input: x, outputChannels: channels, kernelH: kernelH, kernelW: kernelW,
                         strideH: strideH, strideW: strideW, padding: padding)
    }

    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> () -> Void {
        let g = try geometry(shapes)
        let (x, y, act) = (inputs[0], outputs[0], activation)
        let weights = weightsHWC, bias = bias
        return {
            weights.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    f32DepthwiseConv2DReference(g, input: x, weightsHWC: w.baseAddress!, bias: b.baseAddress!,
                                                activation: act, output: y)
                }
            }
        }
    }
}
