import Testing
@testable import BlazeImageHEIF
