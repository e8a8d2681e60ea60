// libFuzzer's driver entry (compiler-rt FuzzerInterface.h): runs the fuzzing loop with a
// callback, so that a Swift executable's own main can start it.
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
