import Testing
@testable import BlazeVideoIO
