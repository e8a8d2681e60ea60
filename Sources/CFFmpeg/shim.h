// Exposes the system FFmpeg libraries (libavformat, libavcodec, libavutil, libswscale; FFmpeg 5.1 and later) to CFFmpegSupport.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
