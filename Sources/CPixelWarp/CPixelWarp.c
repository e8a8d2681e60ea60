// The header is the module; this file only gives SwiftPM a source to build.
