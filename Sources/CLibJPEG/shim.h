// Exposes the system libjpeg-turbo (libjpeg API, 6.2 ABI) to Swift and to CJPEGSupport.
// jpeglib.h needs size_t and FILE declared before it.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
