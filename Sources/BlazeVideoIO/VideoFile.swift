@_exported import BlazeImage
import CFFmpegSupport
