// Exposes the system libpng (1.6) to Swift and to CPNGSupport.
#include <png.h>
