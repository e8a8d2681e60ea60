import GeometryEstimation
import Foundation

/// The head's rotation in degrees, with ML Kit's axes and signs: `x` (pitch) about the image's
/// horizontal axis, positive when the face turns up; `y` (yaw) about the image's vertical
/// axis, positive when the face turns toward the image's right (the subject's left); `z`
/// (roll) about the axis out of the image, positive counter-clockwise in the image.
public struct HeadEulerAngles: Equatable, Sendable {
    /// Pitch, degrees: positive when the face turns up.
    public var x: Float
    /// Yaw, degrees: positive when the face turns toward the image's right.
    public var y: Float
    /// Roll, degrees: positive counter-clockwise in the image.
    public var z: Float

    /// Angles given directly, in degrees.
    public init(x: Float, y: Float, z: Float) { (self.x, self.y, self.z) = (x, y, z) }

    /// The angles of a facial transformation matrix (canonical face → camera; camera x right,
    /// y up, z toward the viewer). Its rotation R (the upper 3x3 over the scale) is decomposed
    /// as R = Ry(yaw) · Rx(pitch) · Rz(roll): yaw about the camera's vertical axis first, then
    /// pitch, then roll in the face's own plane. Then x = −pitch (Rx(+θ) tips the face down),
    /// y = yaw, z = roll. Near ±90° pitch (gimbal lock) roll is folded into yaw.
    public init(transformationMatrix m: TransformMatrix) {
        let column0 = SIMD3(Double(m[0, 0]), Double(m[1, 0]), Double(m[2, 0]))
        let scale = max((column0 * column0).sum().squareRoot(), .leastNormalMagnitude)
        func r(_ i: Int, _ j: Int) -> Double { Double(m[i, j]) / scale }
        let pitch = asin(max(-1, min(1, -r(1, 2))))
        let yaw: Double, roll: Double
        if abs(r(1, 2)) < 0.999_999 {
            yaw = atan2(r(0, 2), r(2, 2))
            roll = atan2(r(1, 0), r(1, 1))
        } else {
            yaw = atan2(-r(2, 0), r(0, 0))
            roll = 0
        }
        let degrees = 180 / Double.pi
        self.init(x: Float(-pitch * degrees), y: Float(yaw * degrees), z: Float(roll * degrees))
    }
}
