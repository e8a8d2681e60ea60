@_exported import BlazeImageIO
import CLibHEIF
