/// Placeholder until the ML Kit view lands.
enum FaceAnalysisPlaceholder {}
