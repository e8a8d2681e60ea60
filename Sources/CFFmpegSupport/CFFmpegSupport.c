#include "CFFmpegSupport.h"
#include <libavformat/avformat.h>
int bfv_version(void) { return (int)avformat_version(); }
