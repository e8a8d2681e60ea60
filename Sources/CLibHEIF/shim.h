// Exposes the system libheif (1.12 and later) to BlazeImageHEIF.
#include <libheif/heif.h>
