// FFmpeg behind status codes: see CFFmpegSupport.h. The model is FFmpeg's doc/examples
// (demux_decode.c, remux.c, transcode.c): av_read_frame, then send/receive with the decoder;
// frames to the encoder, its packets and the copied streams' packets rescaled into the output
// streams' time bases and handed to av_interleaved_write_frame.
#include "CFFmpegSupport.h"

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avstring.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// MARK: - Errors and FFmpeg's log

/// The first error FFmpeg logged on this thread since the current call began: FFmpeg says why
/// ("moov atom not found", "partial file") only in its log, its return codes are generic.
static _Thread_local char first_log[256];
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

/// Keeps errors (for the messages) and drops everything else: a library does not print.
/// What the demuxer said about a file that stops short ("File ended prematurely", "partial
/// file"), on this thread since the current call began; FFmpeg logs it as a warning and carries on.
static _Thread_local char truncation_log[256];

static void log_callback(void *context, int level, const char *format, va_list args) {
    (void)context;
    if (level > AV_LOG_WARNING) return;
    char line[sizeof first_log];
    va_list copy;
    va_copy(copy, args);
    vsnprintf(line, sizeof line, format, copy);
    va_end(copy);
    if (truncation_log[0] == 0 && (strstr(line, "ended prematurely") || strstr(line, "partial file") || strstr(line, "runcated"))) {
        size_t t = strlen(line);
        while (t > 0 && (line[t - 1] == '\n' || line[t - 1] == ' ' || line[t - 1] == '.')) line[--t] = 0;
        memcpy(truncation_log, line, t + 1);
    }
    if (level > AV_LOG_ERROR || first_log[0] != 0) return;
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ' ' || line[n - 1] == '.')) line[--n] = 0;
    memcpy(first_log, line, n + 1);
}

static void install_log(void) { av_log_set_callback(log_callback); }

/// Starts a call: the log callback installed, the last call's log and message cleared.
static void begin(BFVError *error) {
    pthread_once(&log_once, install_log);
    first_log[0] = 0;
    truncation_log[0] = 0;
    if (error) error->message[0] = error->detail[0] = 0;
}

/// Records a failure: `format` (or av_strerror of `code` when NULL) and the log's first error.
static BFVStatus fail(BFVError *error, BFVStatus status, int code, const char *format, ...) {
    if (!error) return status;
    if (format) {
        va_list args;
        va_start(args, format);
        vsnprintf(error->message, sizeof error->message, format, args);
        va_end(args);
    } else if (av_strerror(code, error->message, sizeof error->message) < 0) {
        snprintf(error->message, sizeof error->message, "FFmpeg error %d", code);
    }
    av_strlcpy(error->detail, first_log, sizeof error->detail);
    return status;
}

/// An open failure's status: the file system's errors are I/O, the rest mean "not a video".
static BFVStatus open_status(int code) {
    if (code == AVERROR(ENOENT) || code == AVERROR(EACCES) || code == AVERROR(EISDIR) || code == AVERROR(EIO) ||
        code == AVERROR(EPERM) || code == AVERROR(ENAMETOOLONG) || code == AVERROR(ENOTDIR)) return BFV_IO;
    if (code == AVERROR(ENOMEM)) return BFV_NO_MEMORY;
    return BFV_NOT_VIDEO;
}

/// Protocols a file reader may open: the file itself and standard input (no network, no
/// concat:/subfile: tricks in a path).
static const char *file_protocols = "file,pipe";

/// FFmpeg's URL for a path: "-" is standard input, anything else a plain file.
static char *file_url(const char *path) {
    if (strcmp(path, "-") == 0) return av_strdup("pipe:0");
    return av_asprintf("file:%s", path);
}

// MARK: - Reading

/// Bytes in memory read through a custom AVIOContext.
typedef struct MemorySource {
    uint8_t *data;
    size_t size, position;
} MemorySource;

static int memory_read(void *opaque, uint8_t *buffer, int size) {
    MemorySource *m = opaque;
    size_t left = m->size - m->position;
    if (left == 0) return AVERROR_EOF;
    size_t n = (size_t)size < left ? (size_t)size : left;
    memcpy(buffer, m->data + m->position, n);
    m->position += n;
    return (int)n;
}

static int64_t memory_seek(void *opaque, int64_t offset, int whence) {
    MemorySource *m = opaque;
    if (whence & AVSEEK_SIZE) return (int64_t)m->size;
    int64_t base = 0;
    switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)m->position; break;
    case SEEK_END: base = (int64_t)m->size; break;
    default: return AVERROR(EINVAL);
    }
    if (offset > INT64_MAX - base) return AVERROR(EINVAL);
    int64_t target = base + offset;
    if (target < 0 || target > (int64_t)m->size) return AVERROR(EINVAL);
    m->position = (size_t)target;
    return target;
}

struct bfv_reader {
    AVFormatContext *format;
    AVIOContext *custom_io;       // ours to free (memory input)
    AVIOContext *file_io;         // ours to close (file input)
    MemorySource memory;
    AVCodecContext *decoder;
    AVStream *video;
    int video_index;
    AVPacket *packet;
    AVFrame *frame;
    AVFrame *converted;           // yuv420p (rgb24 when `rgb`) at the stored size, for other formats
    int rgb;                      // frames delivered as packed RGB24 instead of I420 (pictures)
    struct SwsContext *scaler;
    int stored_width, stored_height, width, height, rotation;
    int full_range;
    int64_t default_duration;     // one frame at the average rate, in the stream's time base
    int64_t last_pts, last_duration;
    int have_last;
    int64_t packets;              // video packets demuxed
    int64_t frames;               // frames delivered
    int flushing;                 // the decoder was sent its end of stream
    int64_t first_pts;            // the first frame's time (valid once frames > 0)
    int scan;                     // the last frame delivered: 0 progressive, 1 top field first, 2 bottom first
    int64_t duration;             // the video's declared duration in its time base, -1 unknown
    AVRational rate;              // its average frame rate, {0, 1} unknown
    char truncation[256];         // what the demuxer said of a file that stops short, if it did
    int skip_damaged;             // a damaged packet or frame is dropped instead of ending the read
    int64_t damaged;              // packets and frames dropped so far
    int consecutive_damage;       // failures in a row (a reader that cannot move on stops)
    char first_damage[256];       // what FFmpeg said of the first one
    pthread_mutex_t attach_lock;  // guards writer and copy_map against the writer's thread
    bfv_writer *writer;
    const int *copy_map;          // input stream -> output stream, -1 for none
    int copy_count;
};

static int is_full_range(int format, int range) {
    return range == AVCOL_RANGE_JPEG || format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ422P ||
           format == AV_PIX_FMT_YUVJ444P || format == AV_PIX_FMT_YUVJ440P || format == AV_PIX_FMT_YUVJ411P;
}

/// The stream's display matrix (FFmpeg 6.1 moved it into codecpar's coded side data).
static const int32_t *display_matrix(const AVStream *stream) {
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100)
    const AVPacketSideData *side = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                           stream->codecpar->nb_coded_side_data,
                                                           AV_PKT_DATA_DISPLAYMATRIX);
    return side && side->size >= 9 * sizeof(int32_t) ? (const int32_t *)side->data : NULL;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    return data && size >= 9 * sizeof(int32_t) ? (const int32_t *)data : NULL;
#endif
}

/// Clockwise degrees that turn the stored picture upright, as the ffmpeg tool reads them
/// (av_display_rotation_get is counter-clockwise), rounded to a quarter turn. Flips are ignored.
static int upright_rotation(const AVStream *stream) {
    const int32_t *matrix = display_matrix(stream);
    if (!matrix) return 0;
    double theta = av_display_rotation_get(matrix);
    if (isnan(theta)) return 0;
    theta = -round(theta);
    theta -= 360 * floor(theta / 360 + 0.9 / 360);
    if (fabs(theta - 90) < 1) return 90;
    if (fabs(theta - 180) < 1) return 180;
    if (fabs(theta - 270) < 1) return 270;
    return 0;
}

static BFVStreamKind stream_kind(const AVStream *stream) {
    switch (stream->codecpar->codec_type) {
    case AVMEDIA_TYPE_VIDEO:
        return (stream->disposition & AV_DISPOSITION_ATTACHED_PIC) ? BFV_KIND_ATTACHED_PICTURE : BFV_KIND_VIDEO;
    case AVMEDIA_TYPE_AUDIO: return BFV_KIND_AUDIO;
    case AVMEDIA_TYPE_SUBTITLE: return BFV_KIND_SUBTITLE;
    case AVMEDIA_TYPE_DATA: return BFV_KIND_DATA;
    case AVMEDIA_TYPE_ATTACHMENT: return BFV_KIND_ATTACHMENT;
    default: return BFV_KIND_UNKNOWN;
    }
}

/// The best video stream that is not cover art, with its decoder; -1 if none.
static int best_video_stream(AVFormatContext *format, const AVCodec **decoder) {
    int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, decoder, 0);
    if (index >= 0 && !(format->streams[index]->disposition & AV_DISPOSITION_ATTACHED_PIC)) return index;
    for (unsigned i = 0; i < format->nb_streams; i++) {
        AVStream *s = format->streams[i];
        if (s->codecpar->codec_type != AVMEDIA_TYPE_VIDEO || (s->disposition & AV_DISPOSITION_ATTACHED_PIC)) continue;
        const AVCodec *codec = avcodec_find_decoder(s->codecpar->codec_id);
        if (codec) { *decoder = codec; return (int)i; }
    }
    return -1;
}

static int over_limits(int width, int height, BFVLimits limits) {
    return width > limits.max_side || height > limits.max_side || (int64_t)width * height > limits.max_pixels;
}

static void writer_forget_reader(bfv_writer *w);

static void reader_free(bfv_reader *r) {
    if (!r) return;
    pthread_mutex_lock(&r->attach_lock);
    if (r->writer) writer_forget_reader(r->writer);
    r->writer = NULL;
    pthread_mutex_unlock(&r->attach_lock);
    sws_freeContext(r->scaler);
    av_frame_free(&r->converted);
    av_frame_free(&r->frame);
    av_packet_free(&r->packet);
    avcodec_free_context(&r->decoder);
    avformat_close_input(&r->format);
    if (r->file_io) avio_closep(&r->file_io);
    if (r->custom_io) {
        av_freep(&r->custom_io->buffer);
        avio_context_free(&r->custom_io);
    }
    av_free(r->memory.data);
    pthread_mutex_destroy(&r->attach_lock);
    av_free(r);
}

/// The video stream's duration in its time base: the stream's own, else its Matroska
/// DURATION tag (HH:MM:SS.fraction), else the container's; -1 when none is known.
static int64_t video_duration(const bfv_reader *r) {
    const AVStream *v = r->video;
    if (v->duration != AV_NOPTS_VALUE && v->duration > 0) return v->duration;
    const AVDictionaryEntry *tag = av_dict_get(v->metadata, "DURATION", NULL, 0);
    unsigned hours = 0, minutes = 0;
    double seconds = 0;
    if (tag && sscanf(tag->value, "%u:%u:%lf", &hours, &minutes, &seconds) == 3) {
        double total = hours * 3600.0 + minutes * 60.0 + seconds;
        if (total > 0 && v->time_base.num > 0)
            return (int64_t)(total * v->time_base.den / v->time_base.num + 0.5);
    }
    if (r->format->duration != AV_NOPTS_VALUE && r->format->duration > 0)
        return av_rescale_q(r->format->duration, AV_TIME_BASE_Q, v->time_base);
    return -1;
}

/// Opens the input on `io` (the file's or the memory's), finds its best video stream, opens its
/// decoder and fills `info`. The container is recognised by content alone (the name is not
/// given to FFmpeg, so garbage named .mp4 is not read as a broken MP4), and nothing else may be
/// opened from the input (playlists naming other files, concat lists, QuickTime references).
static BFVStatus reader_setup(bfv_reader *r, AVIOContext *io, int apply_rotation, BFVLimits limits, int threads,
                              BFVReaderInfo *info, BFVError *error) {
    memset(info, 0, sizeof *info);
    r->format = avformat_alloc_context();
    if (!r->format) return fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);
    r->format->pb = io;
    AVDictionary *options = NULL;
    av_dict_set(&options, "protocol_whitelist", "none", 0);
    int code = avformat_open_input(&r->format, "", NULL, &options);
    av_dict_free(&options);
    if (code < 0) return fail(error, open_status(code), code, NULL);

    // Each stream's decoder in find_stream_info refuses pictures over the limit.
    unsigned count = r->format->nb_streams;
    AVDictionary **stream_options = count ? av_calloc(count, sizeof *stream_options) : NULL;
    for (unsigned i = 0; i < count && stream_options; i++)
        av_dict_set_int(&stream_options[i], "max_pixels", limits.max_pixels, 0);
    code = avformat_find_stream_info(r->format, stream_options);
    for (unsigned i = 0; i < count && stream_options; i++) av_dict_free(&stream_options[i]);
    av_free(stream_options);
    if (code < 0) return fail(error, BFV_NOT_VIDEO, code, NULL);

    const AVCodec *codec = NULL;
    r->video_index = best_video_stream(r->format, &codec);
    if (r->video_index < 0) {
        int any = av_find_best_stream(r->format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        if (any == AVERROR_DECODER_NOT_FOUND) return fail(error, BFV_NO_DECODER, 0, "no decoder for its video codec");
        return fail(error, BFV_NOT_VIDEO, 0, "no video stream");
    }
    r->video = r->format->streams[r->video_index];
    AVCodecParameters *par = r->video->codecpar;
    if (par->width <= 0 || par->height <= 0) return fail(error, BFV_NOT_VIDEO, 0, "the video stream has no picture size");
    if (over_limits(par->width, par->height, limits))
        return fail(error, BFV_TOO_LARGE, 0, "%dx%d pictures are over the limit (each side at most %d, at most %lld pixels)",
                    par->width, par->height, limits.max_side, (long long)limits.max_pixels);

    r->decoder = avcodec_alloc_context3(codec);
    if (!r->decoder) return fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);
    code = avcodec_parameters_to_context(r->decoder, par);
    if (code < 0) return fail(error, BFV_DECODE, code, NULL);
    r->decoder->pkt_timebase = r->video->time_base;
    r->decoder->thread_count = threads;
    r->decoder->max_pixels = limits.max_pixels;
    code = avcodec_open2(r->decoder, codec, NULL);
    if (code < 0) return fail(error, BFV_DECODE, code, NULL);

    r->packet = av_packet_alloc();
    r->frame = av_frame_alloc();
    if (!r->packet || !r->frame) return fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);

    // Only the video stream is read until a writer asks for more.
    for (unsigned i = 0; i < r->format->nb_streams; i++)
        if ((int)i != r->video_index) r->format->streams[i]->discard = AVDISCARD_ALL;

    r->stored_width = par->width;
    r->stored_height = par->height;
    r->rotation = upright_rotation(r->video);
    int applied = apply_rotation ? r->rotation : 0;
    r->width = applied == 90 || applied == 270 ? par->height : par->width;
    r->height = applied == 90 || applied == 270 ? par->width : par->height;
    r->full_range = is_full_range(par->format, par->color_range);
    AVRational rate = r->video->avg_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) rate = r->video->r_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) rate = (AVRational){0, 1};
    r->default_duration = rate.num > 0 ? av_rescale_q(1, av_inv_q(rate), r->video->time_base) : 0;
    if (r->default_duration <= 0) r->default_duration = 1;

    av_strlcpy(info->container, r->format->iformat->name, sizeof info->container);
    av_strlcpy(info->codec, avcodec_get_name(par->codec_id), sizeof info->codec);
    const AVPixFmtDescriptor *pixel = av_pix_fmt_desc_get(par->format);
    if (pixel) {
        av_strlcpy(info->pixel_format, pixel->name, sizeof info->pixel_format);
        info->bit_depth = pixel->comp[0].depth;
    }
    info->video_index = r->video_index;
    info->stream_count = (int)r->format->nb_streams;
    info->stored_width = par->width;
    info->stored_height = par->height;
    info->width = r->width;
    info->height = r->height;
    info->rotation = r->rotation;
    info->applied_rotation = applied;
    r->rotation = applied;
    info->tb_num = r->video->time_base.num;
    info->tb_den = r->video->time_base.den;
    info->rate_num = rate.num;
    info->rate_den = rate.den;
    info->duration = video_duration(r);
    r->duration = info->duration;
    r->rate = rate;
    info->frame_count = r->video->nb_frames > 0 ? r->video->nb_frames : -1;
    info->color_range = par->color_range;
    info->color_space = par->color_space;
    info->color_primaries = par->color_primaries;
    info->color_trc = par->color_trc;
    info->full_range = r->full_range;
    info->field_order = applied != 0 ? 0
        : (par->field_order == AV_FIELD_TT || par->field_order == AV_FIELD_TB) ? 1
        : (par->field_order == AV_FIELD_BB || par->field_order == AV_FIELD_BT) ? 2 : 0;
    // Reading ahead for the streams' parameters may already have met the file's early end.
    if (truncation_log[0]) av_strlcpy(r->truncation, truncation_log, sizeof r->truncation);
    return BFV_OK;
}

static bfv_reader *reader_new(void) {
    bfv_reader *r = av_mallocz(sizeof *r);
    if (!r) return NULL;
    pthread_mutex_init(&r->attach_lock, NULL);
    r->video_index = -1;
    return r;
}

bfv_reader *bfv_reader_open(const char *path, int apply_rotation, BFVLimits limits, int threads,
                            BFVReaderInfo *info, BFVStatus *status, BFVError *error) {
    begin(error);
    bfv_reader *r = reader_new();
    char *url = file_url(path);
    if (!r || !url) {
        av_free(url);
        reader_free(r);
        *status = fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);
        return NULL;
    }
    AVDictionary *options = NULL;
    av_dict_set(&options, "protocol_whitelist", file_protocols, 0);
    int code = avio_open2(&r->file_io, url, AVIO_FLAG_READ, NULL, &options);
    av_dict_free(&options);
    av_free(url);
    if (code < 0) {
        reader_free(r);
        *status = fail(error, open_status(code), code, NULL);
        return NULL;
    }
    *status = reader_setup(r, r->file_io, apply_rotation, limits, threads, info, error);
    if (*status != BFV_OK) { reader_free(r); return NULL; }
    return r;
}

bfv_reader *bfv_reader_open_memory(const uint8_t *data, size_t size, int apply_rotation, BFVLimits limits,
                                   int threads, BFVReaderInfo *info, BFVStatus *status, BFVError *error) {
    begin(error);
    bfv_reader *r = reader_new();
    const int buffer_size = 4096;
    uint8_t *buffer = av_malloc(buffer_size);
    if (r) r->memory.data = av_malloc(size ? size : 1);
    if (!r || !buffer || !r->memory.data) {
        av_free(buffer);
        reader_free(r);
        *status = fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);
        return NULL;
    }
    if (size) memcpy(r->memory.data, data, size);
    r->memory.size = size;
    r->custom_io = avio_alloc_context(buffer, buffer_size, 0, &r->memory, memory_read, NULL, memory_seek);
    if (!r->custom_io) {
        av_free(buffer);
        reader_free(r);
        *status = fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);
        return NULL;
    }
    *status = reader_setup(r, r->custom_io, apply_rotation, limits, threads, info, error);
    if (*status != BFV_OK) { reader_free(r); return NULL; }
    return r;
}

/// Demuxers of single pictures (a PNG or JPEG file is a one-frame "video" to FFmpeg).
static int is_image_demuxer(const char *name) {
    size_t n = strlen(name);
    return strcmp(name, "image2") == 0 || (n > 5 && strcmp(name + n - 5, "_pipe") == 0);
}

int bfv_probe(const char *path) {
    begin(NULL);
    char *url = file_url(path);
    if (!url) return 0;
    AVDictionary *options = NULL;
    av_dict_set(&options, "protocol_whitelist", file_protocols, 0);
    AVIOContext *io = NULL;
    int code = avio_open2(&io, url, AVIO_FLAG_READ, NULL, &options);
    av_dict_free(&options);
    av_free(url);
    if (code < 0) return 0;
    // With our own AVIOContext and an empty name, FFmpeg recognises the content, not the extension.
    AVFormatContext *format = avformat_alloc_context();
    int found = 0;
    if (format) {
        format->pb = io;
        av_dict_set(&options, "protocol_whitelist", "none", 0);
        code = avformat_open_input(&format, "", NULL, &options);
        av_dict_free(&options);
        if (code >= 0 && !is_image_demuxer(format->iformat->name) && avformat_find_stream_info(format, NULL) >= 0) {
            const AVCodec *decoder = NULL;
            int index = best_video_stream(format, &decoder);
            found = index >= 0 && format->streams[index]->codecpar->width > 0 && format->streams[index]->codecpar->height > 0;
        }
        avformat_close_input(&format);
    }
    avio_closep(&io);
    return found;
}

BFVStatus bfv_reader_stream(const bfv_reader *r, int index, BFVStreamInfo *out) {
    memset(out, 0, sizeof *out);
    if (index < 0 || (unsigned)index >= r->format->nb_streams) return BFV_INVALID;
    const AVStream *s = r->format->streams[index];
    out->index = index;
    out->kind = stream_kind(s);
    // A stream FFmpeg has no codec for (a QuickTime timecode track, a camera's metadata) is
    // named by its four-character tag ("tmcd", "mebx") rather than "none".
    if (s->codecpar->codec_id == AV_CODEC_ID_NONE && s->codecpar->codec_tag) {
        char tag[AV_FOURCC_MAX_STRING_SIZE] = {0};
        av_fourcc_make_string(tag, s->codecpar->codec_tag);
        av_strlcpy(out->codec, tag, sizeof out->codec);
    } else {
        av_strlcpy(out->codec, avcodec_get_name(s->codecpar->codec_id), sizeof out->codec);
    }
    const AVDictionaryEntry *language = av_dict_get(s->metadata, "language", NULL, 0);
    if (language) av_strlcpy(out->language, language->value, sizeof out->language);
    return BFV_OK;
}

void bfv_reader_tag(const bfv_reader *r, int stream, const char *key, char *out, size_t out_size) {
    if (out_size) out[0] = 0;
    const AVDictionary *tags = stream < 0 ? r->format->metadata
                             : (unsigned)stream < r->format->nb_streams ? r->format->streams[stream]->metadata : NULL;
    const AVDictionaryEntry *entry = av_dict_get(tags, key, NULL, 0);
    if (entry && out_size) av_strlcpy(out, entry->value, out_size);
}

size_t bfv_reader_frame_size(const bfv_reader *r) {
    size_t w = (size_t)r->width, h = (size_t)r->height;
    return r->rgb ? w * h * 3 : w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2);
}

void bfv_reader_deliver_rgb(bfv_reader *r, int rgb) {
    if (r->frames == 0 && !r->converted && r->rotation == 0) r->rgb = rgb != 0;
}

int64_t bfv_reader_packets_read(const bfv_reader *r) { return r->packets; }

/// Copies a `width` x `height` plane of 3-byte pixels (RGB24) into packed `out`: unturned, the
/// only way pictures are read (`bfv_reader_deliver_rgb`).
static void copy_rgb_plane(const uint8_t *src, int stride, int width, int height, uint8_t *out) {
    for (int y = 0; y < height; y++) memcpy(out + (size_t)y * width * 3, src + (size_t)y * stride, (size_t)width * 3);
}

/// Copies a `width` x `height` plane into packed `out`, turned `rotation` degrees clockwise;
/// quarter turns go tile by tile so that the reads stay in cache.
static void copy_plane(const uint8_t *src, int stride, int width, int height, uint8_t *out, int rotation) {
    if (rotation == 0) {
        for (int y = 0; y < height; y++) memcpy(out + (size_t)y * width, src + (size_t)y * stride, (size_t)width);
    } else if (rotation == 180) {
        for (int y = 0; y < height; y++) {
            const uint8_t *s = src + (size_t)(height - 1 - y) * stride;
            uint8_t *d = out + (size_t)y * width;
            for (int x = 0; x < width; x++) d[x] = s[width - 1 - x];
        }
    } else {
        // Output is height x width (`height` columns wide): out[y][x] = in[h-1-x][y] for 90,
        // in[x][w-1-y] for 270.
        const int tile = 32, out_width = height, out_height = width;
        for (int ty = 0; ty < out_height; ty += tile)
            for (int tx = 0; tx < out_width; tx += tile) {
                int ye = ty + tile < out_height ? ty + tile : out_height;
                int xe = tx + tile < out_width ? tx + tile : out_width;
                for (int y = ty; y < ye; y++) {
                    uint8_t *d = out + (size_t)y * out_width;
                    if (rotation == 90)
                        for (int x = tx; x < xe; x++) d[x] = src[(size_t)(height - 1 - x) * stride + y];
                    else
                        for (int x = tx; x < xe; x++) d[x] = src[(size_t)x * stride + (width - 1 - y)];
                }
            }
    }
}

/// The decoded frame as packed 8-bit I420 of the delivered size: yuv420p (and yuvj420p) of the
/// stored size and range copied plane by plane, anything else through libswscale first. With
/// `rgb`, packed RGB24 of the stored size: rgb24 copied, anything else through libswscale.
static BFVStatus deliver(bfv_reader *r, AVFrame *f, uint8_t *out, BFVError *error) {
    int frame_full = is_full_range(f->format, f->color_range);
    const uint8_t *planes[3] = {f->data[0], f->data[1], f->data[2]};
    int strides[3] = {f->linesize[0], f->linesize[1], f->linesize[2]};
    enum AVPixelFormat wanted = r->rgb ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_YUV420P;
    int direct = f->width == r->stored_width && f->height == r->stored_height &&
                 (r->rgb ? f->format == AV_PIX_FMT_RGB24
                         : (f->format == AV_PIX_FMT_YUV420P || f->format == AV_PIX_FMT_YUVJ420P) && frame_full == r->full_range);
    if (!direct) {
        if (f->width <= 0 || f->height <= 0 || f->format < 0)
            return fail(error, BFV_DECODE, 0, "the decoder gave a frame with no picture");
        r->scaler = sws_getCachedContext(r->scaler, f->width, f->height, f->format, r->stored_width, r->stored_height,
                                         wanted, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | (r->rgb ? SWS_FULL_CHR_H_INP : 0),
                                         NULL, NULL, NULL);
        if (!r->scaler)
            return fail(error, BFV_DECODE, 0, "cannot convert %s frames to %s", av_get_pix_fmt_name(f->format),
                        av_get_pix_fmt_name(wanted));
        const int *coefficients = sws_getCoefficients(f->colorspace);
        // A picture's gray or palette samples span their whole range (libswscale would take 16-bit
        // gray as limited-range luma).
        const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
        int source_full = r->rgb && d && (d->nb_components < 3 || (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL))) ? 1 : frame_full;
        sws_setColorspaceDetails(r->scaler, coefficients, source_full, coefficients, r->rgb ? 1 : r->full_range, 0, 1 << 16, 1 << 16);
        if (!r->converted) {
            r->converted = av_frame_alloc();
            if (!r->converted) return fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);
            r->converted->format = wanted;
            r->converted->width = r->stored_width;
            r->converted->height = r->stored_height;
            int code = av_frame_get_buffer(r->converted, 0);
            if (code < 0) return fail(error, BFV_NO_MEMORY, code, NULL);
        }
        int code = sws_scale(r->scaler, (const uint8_t *const *)f->data, f->linesize, 0, f->height,
                             r->converted->data, r->converted->linesize);
        if (code < 0) return fail(error, BFV_DECODE, code, NULL);
        for (int i = 0; i < 3; i++) { planes[i] = r->converted->data[i]; strides[i] = r->converted->linesize[i]; }
    }
    int w = r->stored_width, h = r->stored_height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    if (r->rgb) {
        copy_rgb_plane(planes[0], strides[0], w, h, out);
        return BFV_OK;
    }
    copy_plane(planes[0], strides[0], w, h, out, r->rotation);
    copy_plane(planes[1], strides[1], cw, ch, out + (size_t)w * h, r->rotation);
    copy_plane(planes[2], strides[2], cw, ch, out + (size_t)w * h + (size_t)cw * ch, r->rotation);
    return BFV_OK;
}

static BFVStatus writer_copy_packet(bfv_writer *w, int output, AVPacket *packet, AVRational time_base, BFVError *error);

/// At the decoder's end: an error if the input stopped short (an I/O error, or fewer video
/// packets than the container declares: a truncated MP4 whose index survived).
/// A file counts as whole only when FFmpeg said nothing of it ending early, at least one frame
/// decoded, and the frames cover the declared duration: at least 90% of duration x rate frames,
/// or frame times spanning at least 90% of the duration (a variable-rate video), when known.
static BFVStatus read_failed(bfv_reader *r, BFVStatus status, int code, BFVError *error);

static BFVStatus end_of_stream(bfv_reader *r, BFVError *error) {
    if (r->format->pb && r->format->pb->error < 0 && r->format->pb->error != AVERROR_EOF)
        return read_failed(r, BFV_DEMUX, r->format->pb->error, error);
    if (r->frames == 0)
        return fail(error, BFV_TRUNCATED, 0, "no video frame decoded (%lld video packets read)%s%s%s", (long long)r->packets,
                    r->truncation[0] ? ": FFmpeg says \"" : "", r->truncation, r->truncation[0] ? "\"" : "");
    if (r->video->nb_frames > 0 && r->packets < r->video->nb_frames)
        return fail(error, BFV_TRUNCATED, 0, "the file ends after %lld of the %lld video packets its container lists",
                    (long long)r->packets, (long long)r->video->nb_frames);
    long long expected = 0;
    int short_of_duration = 0;
    if (r->duration > 0 && r->rate.num > 0 && r->rate.den > 0) {
        double seconds = (double)r->duration * r->video->time_base.num / r->video->time_base.den;
        expected = (long long)(seconds * r->rate.num / r->rate.den + 0.5);
        int64_t covered = r->last_pts + r->last_duration - r->first_pts;
        short_of_duration = (double)r->frames < 0.9 * (double)expected && (double)covered < 0.9 * (double)r->duration;
    }
    if (r->truncation[0] || short_of_duration) {
        if (expected > 0)
            return fail(error, BFV_TRUNCATED, 0, "%lld of about %lld frames decoded%s%s%s", (long long)r->frames, expected,
                        r->truncation[0] ? " (FFmpeg says \"" : "", r->truncation, r->truncation[0] ? "\")" : "");
        return fail(error, BFV_TRUNCATED, 0, "%lld frames decoded, then FFmpeg says \"%s\"", (long long)r->frames, r->truncation);
    }
    return BFV_END;
}

/// A read or decode failure, named for what it is. The file was cut short (a faststart MP4
/// copied or recorded only in part, its last packet partly there) when the container's index
/// places video data past the file's end, or, without such an index, when the demuxer has
/// consumed the whole file and read fewer video packets than the container lists: that is
/// `BFV_TRUNCATED` with the figures and FFmpeg's words. Anything else is `status` as FFmpeg said it.
static BFVStatus read_failed(bfv_reader *r, BFVStatus status, int code, BFVError *error) {
    AVIOContext *pb = r->format->pb;
    int64_t size = pb ? avio_size(pb) : -1;
    if (size <= 0) return fail(error, status, code, NULL);
    char said[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(code, said, sizeof said);
    // The furthest byte any stream's index places data at (audio too: a cut may fall in it).
    int64_t indexed_end = 0;
    int entries = avformat_index_get_entries_count(r->video);
    for (unsigned i = 0; i < r->format->nb_streams; i++) {
        int n = avformat_index_get_entries_count(r->format->streams[i]);
        const AVIndexEntry *last = n > 0 ? avformat_index_get_entry(r->format->streams[i], n - 1) : NULL;
        if (last && last->pos >= 0 && last->pos + last->size > indexed_end) indexed_end = last->pos + last->size;
    }
    if (indexed_end > size)
        return fail(error, BFV_TRUNCATED, 0, "the file is cut short: it ends at byte %lld, and its index places data up to "
                    "byte %lld (%lld of %d video packets read, %lld frames decoded; FFmpeg says \"%s\")", (long long)size,
                    (long long)indexed_end, (long long)r->packets, entries, (long long)r->frames, said);
    if (entries == 0 && avio_tell(pb) >= size && r->video->nb_frames > 0 && r->packets < r->video->nb_frames)
        return fail(error, BFV_TRUNCATED, 0, "the file ends after %lld of the %lld video packets it lists (%lld frames decoded; "
                    "FFmpeg says \"%s\")", (long long)r->packets, (long long)r->video->nb_frames, (long long)r->frames, said);
    return fail(error, status, code, NULL);
}

/// With `skip_damaged`: a failure that is not the file's end is dropped and counted (true), as
/// the ffmpeg tool goes on past a damaged packet; 100 in a row end the read all the same.
static int skipped_damage(bfv_reader *r, BFVStatus *status, int code, BFVError *error) {
    *status = read_failed(r, BFV_DECODE, code, error);
    if (!r->skip_damaged || *status == BFV_TRUNCATED || ++r->consecutive_damage > 100) return 0;
    if (r->damaged++ == 0) {
        char said[AV_ERROR_MAX_STRING_SIZE] = {0};
        av_strerror(code, said, sizeof said);
        snprintf(r->first_damage, sizeof r->first_damage, "%s%s%s%s", said, error->detail[0] ? " (" : "", error->detail,
                 error->detail[0] ? ")" : "");
    }
    begin(error);
    return 1;
}

void bfv_reader_skip_damaged(bfv_reader *r, int skip) { r->skip_damaged = skip != 0; }

/// Whether a decoded frame holds two interlaced fields, and which comes first: 0 progressive,
/// 1 top field first, 2 bottom field first (FFmpeg 6.1 moved the two flags into `flags`).
static int frame_scan(const AVFrame *frame) {
#ifdef AV_FRAME_FLAG_INTERLACED
    if (!(frame->flags & AV_FRAME_FLAG_INTERLACED)) return 0;
    return (frame->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST) ? 1 : 2;
#else
    if (!frame->interlaced_frame) return 0;
    return frame->top_field_first ? 1 : 2;
#endif
}

int bfv_reader_scan(const bfv_reader *r) { return r->scan; }

int64_t bfv_reader_damaged(const bfv_reader *r, char *first, size_t first_size) {
    if (first && first_size > 0) av_strlcpy(first, r->first_damage, first_size);
    return r->damaged;
}

BFVStatus bfv_reader_next_frame(bfv_reader *r, uint8_t *out, size_t out_size, int64_t *pts, BFVError *error) {
    begin(error);
    BFVStatus failed = BFV_OK;
    if (out_size != bfv_reader_frame_size(r)) return fail(error, BFV_INVALID, 0, "the frame buffer has the wrong size");
    for (;;) {
        int code = avcodec_receive_frame(r->decoder, r->frame);
        if (code >= 0) {
            BFVStatus status = deliver(r, r->frame, out, error);
            r->scan = r->rotation == 0 ? frame_scan(r->frame) : 0;   // a turned frame's fields are columns: not said
            int64_t t = r->frame->best_effort_timestamp;
            if (t == AV_NOPTS_VALUE) t = r->have_last ? r->last_pts + r->last_duration : 0;
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
            int64_t duration = r->frame->duration;
#else
            int64_t duration = r->frame->pkt_duration;
#endif
            if (r->frames == 0) r->first_pts = t;
            r->last_pts = t;
            r->last_duration = duration > 0 ? duration : r->default_duration;
            r->have_last = 1;
            av_frame_unref(r->frame);
            if (status != BFV_OK) return status;
            *pts = t;
            r->frames++;
            r->consecutive_damage = 0;
            return BFV_OK;
        }
        if (code == AVERROR_EOF) return end_of_stream(r, error);
        if (code != AVERROR(EAGAIN)) {
            if (skipped_damage(r, &failed, code, error)) continue;
            return failed;
        }
        if (r->flushing) return end_of_stream(r, error);

        code = av_read_frame(r->format, r->packet);
        if (truncation_log[0] && !r->truncation[0]) av_strlcpy(r->truncation, truncation_log, sizeof r->truncation);
        if (code == AVERROR_EOF) {
            if (r->format->pb && r->format->pb->error < 0 && r->format->pb->error != AVERROR_EOF)
                return read_failed(r, BFV_DEMUX, r->format->pb->error, error);
            r->flushing = 1;
            code = avcodec_send_packet(r->decoder, NULL);
            if (code < 0 && code != AVERROR_EOF) return read_failed(r, BFV_DECODE, code, error);
            continue;
        }
        if (code < 0) {
            if (skipped_damage(r, &failed, code, error)) continue;
            return failed == BFV_DECODE ? read_failed(r, BFV_DEMUX, code, error) : failed;
        }

        if (r->packet->stream_index == r->video_index) {
            r->packets++;
            code = avcodec_send_packet(r->decoder, r->packet);
            av_packet_unref(r->packet);
            if (code < 0 && code != AVERROR(EAGAIN)) {
                if (skipped_damage(r, &failed, code, error)) continue;
                return failed;
            }
            continue;
        }
        BFVStatus status = BFV_OK;
        pthread_mutex_lock(&r->attach_lock);
        int index = r->packet->stream_index;
        if (r->writer && index >= 0 && index < r->copy_count && r->copy_map[index] >= 0)
            status = writer_copy_packet(r->writer, r->copy_map[index], r->packet,
                                        r->format->streams[index]->time_base, error);
        pthread_mutex_unlock(&r->attach_lock);
        av_packet_unref(r->packet);
        if (status != BFV_OK) return status;
    }
}

void bfv_reader_close(bfv_reader *r) { reader_free(r); }

// MARK: - Writing

struct bfv_writer {
    AVFormatContext *format;
    AVCodecContext *encoder;
    AVStream *video;
    pthread_mutex_t lock;         // every muxer call: the reader's thread copies packets too
    bfv_reader *reader;
    int *copy_map;                // input stream -> output stream, -1 for none
    int copy_count;
    int64_t *last_dts;            // per output stream, for the monotonic guard
    AVFrame *held;                // the last frame, sent once the next one gives its duration
    AVPacket *packet;
    int64_t last_pts, last_duration;
    int have_last;
    int64_t *duration_pts, *duration_values;  // the frames in the encoder: pts -> duration
    int duration_count, duration_capacity;
    struct SwsContext *scaler;    // RGB frames
    int field_order;              // 1 or 2: frames encoded interlaced, top or bottom field first
    AVRational frame_rate;
    int in_width, in_height;      // the frames' size; the encoder's is this or one less (even)
    int full_range;
    int64_t frames_written;
    int failed, finished;
};

int bfv_has_encoder(BFVCodec codec) {
    const char *name = codec == BFV_CODEC_H264 ? "libx264" : codec == BFV_CODEC_HEVC ? "libx265" : "libvpx-vp9";
    return avcodec_find_encoder_by_name(name) != NULL;
}

int bfv_container_can_hold(const char *format_name, const bfv_reader *r, int index) {
    const AVOutputFormat *format = av_guess_format(NULL, format_name, NULL);
    if (!format || index < 0 || (unsigned)index >= r->format->nb_streams) return 0;
    int answer = avformat_query_codec(format, r->format->streams[index]->codecpar->codec_id, FF_COMPLIANCE_NORMAL);
    return answer > 0 ? 1 : answer == 0 ? 0 : -1;
}

/// Whether `text` (a packet's bytes, any text subtitle codec: SubRip, mov_text, ASS) places
/// the recording: a location word ("gps", "latitude", "longitude", "home(", "lat:", "lon:")
/// with a number of three decimals or more, or two numbers of four decimals or more (dash
/// cameras' "N37.7749 W122.4194"). Ordinary dialogue has neither.
static int text_names_location(const uint8_t *text, int size) {
    char lower[2048];
    int n = size < (int)sizeof lower - 1 ? size : (int)sizeof lower - 1;
    for (int i = 0; i < n; i++) {
        char c = (char)text[i];
        lower[i] = c == 0 ? ' ' : (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    lower[n] = 0;
    // The numbers with three decimals or more, and those with four or more.
    int fine = 0, finer = 0;
    for (int i = 1; i < n; i++) {
        if (lower[i] != '.' || lower[i - 1] < '0' || lower[i - 1] > '9') continue;
        int digits = 0;
        while (i + 1 + digits < n && lower[i + 1 + digits] >= '0' && lower[i + 1 + digits] <= '9') digits++;
        if (digits >= 3) fine++;
        if (digits >= 4) finer++;
    }
    if (finer >= 2) return 1;
    if (!fine) return 0;
    static const char *const words[] = {"gps", "latitude", "longitude", "home(", "lat:", "lon:", "lng:"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(lower, words[i])) return 1;
    return 0;
}

int bfv_stream_text_names_location(const char *path, int index, int packets) {
    AVFormatContext *format = NULL;
    if (!path || avformat_open_input(&format, path, NULL, NULL) < 0) return 0;
    int found = 0;
    if (index >= 0 && (unsigned)index < format->nb_streams) {
        // The other streams' packets are skipped by the demuxer, not read.
        for (unsigned i = 0; i < format->nb_streams; i++) format->streams[i]->discard = (int)i == index ? AVDISCARD_DEFAULT : AVDISCARD_ALL;
        AVPacket *packet = av_packet_alloc();
        for (int seen = 0, reads = 0; packet && !found && seen < packets && reads < 100000 && av_read_frame(format, packet) >= 0; reads++) {
            if (packet->stream_index == index) {
                seen++;
                found = text_names_location(packet->data, packet->size);
            }
            av_packet_unref(packet);
        }
        av_packet_free(&packet);
    }
    avformat_close_input(&format);
    return found;
}

/// Keys that can place the recording: ISO 6709 locations, GPS tags.
static int names_location(const char *key) {
    return av_stristr(key, "location") != NULL || av_stristr(key, "gps") != NULL;
}

/// Copies the tags the policy allows: `language` always; with `keep`, all but location keys
/// (unless `keep_location`) and `skip` ("rotate", "encoder" for the re-encoded video).
static void copy_tags(AVDictionary **to, const AVDictionary *from, int keep, int keep_location, int video) {
    const AVDictionaryEntry *entry = NULL;
    while ((entry = av_dict_get(from, "", entry, AV_DICT_IGNORE_SUFFIX))) {
        int allowed = strcmp(entry->key, "language") == 0 ||
                      (keep && (keep_location || !names_location(entry->key)) &&
                       !(video && (strcmp(entry->key, "rotate") == 0 || strcmp(entry->key, "encoder") == 0)));
        if (allowed) av_dict_set(to, entry->key, entry->value, 0);
    }
}

/// Writes one packet with the muxer's lock held: timestamps from `time_base` to the output
/// stream's, decoding times kept increasing (muxers refuse anything else).
static BFVStatus write_locked(bfv_writer *w, int output, AVPacket *packet, AVRational time_base, BFVError *error) {
    if (w->failed || w->finished) return BFV_OK;
    AVStream *stream = w->format->streams[output];
    packet->stream_index = output;
    packet->pos = -1;
    av_packet_rescale_ts(packet, time_base, stream->time_base);
    if (packet->dts != AV_NOPTS_VALUE) {
        if (w->last_dts[output] != AV_NOPTS_VALUE && packet->dts <= w->last_dts[output]) {
            packet->dts = w->last_dts[output] + 1;
            if (packet->pts != AV_NOPTS_VALUE && packet->pts < packet->dts) packet->pts = packet->dts;
        }
        w->last_dts[output] = packet->dts;
    }
    int code = av_interleaved_write_frame(w->format, packet);
    if (code < 0) {
        w->failed = 1;
        return fail(error, BFV_WRITE, code, NULL);
    }
    return BFV_OK;
}

static BFVStatus writer_copy_packet(bfv_writer *w, int output, AVPacket *packet, AVRational time_base, BFVError *error) {
    pthread_mutex_lock(&w->lock);
    BFVStatus status = write_locked(w, output, packet, time_base, error);
    pthread_mutex_unlock(&w->lock);
    return status;
}

static void writer_forget_reader(bfv_writer *w) { w->reader = NULL; }

static void detach(bfv_writer *w) {
    bfv_reader *r = w->reader;
    if (!r) return;
    pthread_mutex_lock(&r->attach_lock);
    if (r->writer == w) {
        r->writer = NULL;
        r->copy_map = NULL;
        r->copy_count = 0;
    }
    pthread_mutex_unlock(&r->attach_lock);
    w->reader = NULL;
}

void bfv_writer_close(bfv_writer *w) {
    if (!w) return;
    detach(w);
    if (w->format) {
        if (w->format->pb) avio_closep(&w->format->pb);
        avformat_free_context(w->format);
    }
    avcodec_free_context(&w->encoder);
    av_frame_free(&w->held);
    av_packet_free(&w->packet);
    sws_freeContext(w->scaler);
    av_free(w->copy_map);
    av_free(w->last_dts);
    av_free(w->duration_pts);
    av_free(w->duration_values);
    pthread_mutex_destroy(&w->lock);
    av_free(w);
}

/// Opens the encoder with the codec's options: CRF rate control, x264/x265 preset, VP9
/// deadline, cpu-used and row-based multithreading.
static BFVStatus open_encoder(bfv_writer *w, const BFVWriterConfig *c, BFVError *error) {
    const char *name = c->codec == BFV_CODEC_H264 ? "libx264" : c->codec == BFV_CODEC_HEVC ? "libx265" : "libvpx-vp9";
    const AVCodec *codec = avcodec_find_encoder_by_name(name);
    if (!codec) return fail(error, BFV_UNSUPPORTED, 0, "this FFmpeg has no %s encoder", name);
    AVCodecContext *e = w->encoder = avcodec_alloc_context3(codec);
    if (!e) return fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);
    // libx264 and libx265 encode 4:2:0 at even sizes only: an odd last row or column is left out.
    e->width = c->codec == BFV_CODEC_VP9 ? c->width : c->width & ~1;
    e->height = c->codec == BFV_CODEC_VP9 ? c->height : c->height & ~1;
    if (e->width <= 0 || e->height <= 0) return fail(error, BFV_INVALID, 0, "%s cannot encode %dx%d frames", name, c->width, c->height);
    e->pix_fmt = AV_PIX_FMT_YUV420P;
    e->time_base = (AVRational){c->tb_num, c->tb_den};
    if (c->rate_num > 0 && c->rate_den > 0) e->framerate = (AVRational){c->rate_num, c->rate_den};
    e->sample_aspect_ratio = (AVRational){1, 1};
    e->color_range = c->color_range;
    e->colorspace = c->color_space;
    e->color_primaries = c->color_primaries;
    e->color_trc = c->color_trc;
    e->thread_count = c->threads;
    if (w->format->oformat->flags & AVFMT_GLOBALHEADER) e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    // Interlaced input stays interlaced (x264 codes each frame's two fields as such), so that
    // players deinterlace it as they did the input instead of showing its fields combed. x264
    // codes fields only at heights divisible by 4 (MPEG-2 has no such rule): at others, the
    // frames are coded progressive rather than the file refused.
    if (c->codec == BFV_CODEC_H264 && (c->field_order == 1 || c->field_order == 2) && e->height % 4 == 0) {
        e->flags |= AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME;
        e->field_order = c->field_order == 1 ? AV_FIELD_TT : AV_FIELD_BB;
        w->field_order = c->field_order;
    }
    AVDictionary *options = NULL;
    switch (c->codec) {
    case BFV_CODEC_H264:
        av_dict_set(&options, "preset", c->preset ? c->preset : "superfast", 0);
        av_dict_set_int(&options, "crf", c->crf >= 0 ? c->crf : 23, 0);
        // x264 takes the field order from its own parameter (the frames' flag alone gives tff).
        if (w->field_order) av_dict_set(&options, "x264-params", w->field_order == 1 ? "tff=1" : "bff=1", 0);
        break;
    case BFV_CODEC_HEVC:
        av_dict_set(&options, "preset", c->preset ? c->preset : "superfast", 0);
        av_dict_set_int(&options, "crf", c->crf >= 0 ? c->crf : 20, 0);
        av_dict_set(&options, "x265-params", "log-level=error", 0);
        break;
    case BFV_CODEC_VP9:
        av_dict_set_int(&options, "crf", c->crf >= 0 ? c->crf : 24, 0);
        av_dict_set(&options, "b", "0", 0);
        av_dict_set(&options, "deadline", c->deadline ? c->deadline : "realtime", 0);
        av_dict_set_int(&options, "cpu-used", c->cpu_used >= 0 ? c->cpu_used : 8, 0);
        av_dict_set(&options, "row-mt", "1", 0);
        break;
    }
    int code = avcodec_open2(e, codec, &options);
    av_dict_free(&options);
    if (code < 0) return fail(error, BFV_ENCODE, code, NULL);
    return BFV_OK;
}

bfv_writer *bfv_writer_open(const BFVWriterConfig *c, bfv_reader *reader, const int *copy, int copy_count,
                            BFVStatus *status, BFVError *error) {
    begin(error);
    bfv_writer *w = av_mallocz(sizeof *w);
    if (!w) { *status = fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL); return NULL; }
    pthread_mutex_init(&w->lock, NULL);
#define FAIL(expression) do { *status = (expression); bfv_writer_close(w); return NULL; } while (0)
    if (c->width <= 0 || c->height <= 0 || c->tb_num <= 0 || c->tb_den <= 0)
        FAIL(fail(error, BFV_INVALID, 0, "invalid size %dx%d or time base %d/%d", c->width, c->height, c->tb_num, c->tb_den));
    const AVOutputFormat *guessed = av_guess_format(NULL, c->format_name, NULL);
    if (!guessed) FAIL(fail(error, BFV_UNSUPPORTED, 0, "no FFmpeg muxer for this file name"));
    int code = avformat_alloc_output_context2(&w->format, guessed, NULL, c->path);
    if (code < 0) FAIL(fail(error, BFV_WRITE, code, NULL));
    // Matroska and WebM: segment and track UIDs derived from the content, not random, so that
    // two identical runs write the same bytes (MP4 and MOV are deterministic already).
    if (strcmp(guessed->name, "matroska") == 0 || strcmp(guessed->name, "webm") == 0) w->format->flags |= AVFMT_FLAG_BITEXACT;
    w->packet = av_packet_alloc();
    if (!w->packet) FAIL(fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL));
    w->full_range = c->color_range == AVCOL_RANGE_JPEG;
    w->in_width = c->width;
    w->in_height = c->height;
    w->frame_rate = (AVRational){c->rate_num, c->rate_den};

    BFVStatus s = open_encoder(w, c, error);
    if (s != BFV_OK) FAIL(s);
    w->video = avformat_new_stream(w->format, NULL);
    if (!w->video) FAIL(fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL));
    code = avcodec_parameters_from_context(w->video->codecpar, w->encoder);
    if (code < 0) FAIL(fail(error, BFV_WRITE, code, NULL));
    w->video->time_base = w->encoder->time_base;
    if (c->rate_num > 0 && c->rate_den > 0) w->video->avg_frame_rate = w->frame_rate;
    // Apple players want HEVC tagged hvc1 in MP4 and QuickTime files.
    if (c->codec == BFV_CODEC_HEVC && avformat_query_codec(guessed, AV_CODEC_ID_HEVC, FF_COMPLIANCE_NORMAL) > 0 &&
        (strcmp(guessed->name, "mp4") == 0 || strcmp(guessed->name, "mov") == 0))
        w->video->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');

    if (reader) {
        copy_tags(&w->format->metadata, reader->format->metadata, c->keep_metadata, c->keep_location, 0);
        copy_tags(&w->video->metadata, reader->video->metadata, c->keep_metadata, c->keep_location, 1);
        w->copy_count = (int)reader->format->nb_streams;
        w->copy_map = av_malloc_array(w->copy_count, sizeof *w->copy_map);
        if (!w->copy_map) FAIL(fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL));
        for (int i = 0; i < w->copy_count; i++) w->copy_map[i] = -1;
        for (int i = 0; i < copy_count; i++) {
            int index = copy[i];
            if (index < 0 || index >= w->copy_count || index == reader->video_index)
                FAIL(fail(error, BFV_INVALID, 0, "stream %d cannot be copied", index));
            AVStream *in = reader->format->streams[index];
            AVStream *out = avformat_new_stream(w->format, NULL);
            if (!out) FAIL(fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL));
            code = avcodec_parameters_copy(out->codecpar, in->codecpar);
            if (code < 0) FAIL(fail(error, BFV_WRITE, code, NULL));
            out->codecpar->codec_tag = 0;
            out->time_base = in->time_base;
            out->disposition = in->disposition & ~AV_DISPOSITION_ATTACHED_PIC;
            copy_tags(&out->metadata, in->metadata, c->keep_metadata, c->keep_location, 0);
            w->copy_map[index] = out->index;
        }
    }
    w->last_dts = av_malloc_array(w->format->nb_streams, sizeof *w->last_dts);
    if (!w->last_dts) FAIL(fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL));
    for (unsigned i = 0; i < w->format->nb_streams; i++) w->last_dts[i] = AV_NOPTS_VALUE;

    AVDictionary *options = NULL;
    av_dict_set(&options, "protocol_whitelist", file_protocols, 0);
    char *url = file_url(c->path);
    code = url ? avio_open2(&w->format->pb, url, AVIO_FLAG_WRITE, NULL, &options) : AVERROR(ENOMEM);
    av_free(url);
    av_dict_free(&options);
    if (code < 0) FAIL(fail(error, BFV_IO, code, NULL));
    // Matroska stores Opus's and AAC's priming as a codec delay: the generic shift to non-negative
    // times would move every stream (the video too) later by it on each pass.
    if (strcmp(guessed->name, "matroska") == 0 || strcmp(guessed->name, "webm") == 0)
        w->format->avoid_negative_ts = AVFMT_AVOID_NEG_TS_DISABLED;
    // MP4 and QuickTime keep only their own few keys unless told to write every tag (Apple's
    // com.apple.quicktime.* among them).
    if (c->keep_metadata && (strcmp(guessed->name, "mp4") == 0 || strcmp(guessed->name, "mov") == 0 ||
                             strcmp(guessed->name, "ipod") == 0))
        av_dict_set(&options, "movflags", "use_metadata_tags", 0);
    code = avformat_write_header(w->format, &options);
    av_dict_free(&options);
    if (code < 0) FAIL(fail(error, BFV_WRITE, code, NULL));

    if (reader) {
        pthread_mutex_lock(&reader->attach_lock);
        for (int i = 0; i < w->copy_count; i++)
            if (w->copy_map[i] >= 0) reader->format->streams[i]->discard = AVDISCARD_DEFAULT;
        reader->writer = w;
        reader->copy_map = w->copy_map;
        reader->copy_count = w->copy_count;
        pthread_mutex_unlock(&reader->attach_lock);
        w->reader = reader;
    }
#undef FAIL
    *status = BFV_OK;
    return w;
}

/// Remembers a frame's duration until its packet comes out of the encoder.
static int remember_duration(bfv_writer *w, int64_t pts, int64_t duration) {
    if (w->duration_count == w->duration_capacity) {
        int capacity = w->duration_capacity ? w->duration_capacity * 2 : 64;
        int64_t *p = av_realloc_array(w->duration_pts, capacity, sizeof *p);
        if (!p) return AVERROR(ENOMEM);
        w->duration_pts = p;
        int64_t *v = av_realloc_array(w->duration_values, capacity, sizeof *v);
        if (!v) return AVERROR(ENOMEM);
        w->duration_values = v;
        w->duration_capacity = capacity;
    }
    w->duration_pts[w->duration_count] = pts;
    w->duration_values[w->duration_count] = duration;
    w->duration_count++;
    return 0;
}

static int64_t take_duration(bfv_writer *w, int64_t pts) {
    for (int i = 0; i < w->duration_count; i++)
        if (w->duration_pts[i] == pts) {
            int64_t duration = w->duration_values[i];
            w->duration_count--;
            w->duration_pts[i] = w->duration_pts[w->duration_count];
            w->duration_values[i] = w->duration_values[w->duration_count];
            return duration;
        }
    return 0;
}

/// Sends `frame` (NULL: the end) to the encoder and writes every packet it has ready.
static BFVStatus encode(bfv_writer *w, AVFrame *frame, BFVError *error) {
    int code = avcodec_send_frame(w->encoder, frame);
    if (code < 0) return fail(error, BFV_ENCODE, code, NULL);
    for (;;) {
        code = avcodec_receive_packet(w->encoder, w->packet);
        if (code == AVERROR(EAGAIN) || code == AVERROR_EOF) return BFV_OK;
        if (code < 0) return fail(error, BFV_ENCODE, code, NULL);
        w->packet->duration = take_duration(w, w->packet->pts);
        pthread_mutex_lock(&w->lock);
        BFVStatus status = write_locked(w, w->video->index, w->packet, w->encoder->time_base, error);
        pthread_mutex_unlock(&w->lock);
        av_packet_unref(w->packet);
        if (status != BFV_OK) return status;
        w->frames_written++;
    }
}

/// Sends the held frame with its duration, now known.
static BFVStatus send_held(bfv_writer *w, int64_t duration, BFVError *error) {
    if (!w->held) return BFV_OK;
    if (duration <= 0) duration = 1;
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
    w->held->duration = duration;
#else
    w->held->pkt_duration = duration;
#endif
    if (remember_duration(w, w->held->pts, duration) < 0) return fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);
    BFVStatus status = encode(w, w->held, error);
    av_frame_free(&w->held);
    return status;
}

BFVStatus bfv_writer_write_frame(bfv_writer *w, int format, const uint8_t *data, size_t size, int width, int height,
                                 int full_range, int64_t pts, int tb_num, int tb_den, BFVError *error) {
    begin(error);
    if (w->failed || w->finished) return fail(error, BFV_INVALID, 0, "the writer has failed or finished");
    if (width != w->in_width || height != w->in_height)
        return fail(error, BFV_INVALID, 0, "a %dx%d frame for a %dx%d video", width, height, w->in_width, w->in_height);
    size_t cw = ((size_t)width + 1) / 2, ch = ((size_t)height + 1) / 2, luma = (size_t)width * height;
    size_t needed = format == 0 ? luma + 2 * cw * ch : format == 1 ? luma : 3 * luma;
    if (size != needed || format < 0 || format > 2 || tb_num <= 0 || tb_den <= 0)
        return fail(error, BFV_INVALID, 0, "the frame's bytes, format or time base do not match");

    AVFrame *f = av_frame_alloc();
    if (!f) return fail(error, BFV_NO_MEMORY, AVERROR(ENOMEM), NULL);
    // The encoder's size: the frame's, or its top-left even part.
    int ew = w->encoder->width, eh = w->encoder->height;
    size_t ecw = ((size_t)ew + 1) / 2, ech = ((size_t)eh + 1) / 2;
    f->format = AV_PIX_FMT_YUV420P;
    f->width = ew;
    f->height = eh;
    int code = av_frame_get_buffer(f, 0);
    if (code < 0) { av_frame_free(&f); return fail(error, BFV_NO_MEMORY, code, NULL); }
    if (format == 2) {
        w->scaler = sws_getCachedContext(w->scaler, ew, eh, AV_PIX_FMT_RGB24, ew, eh, AV_PIX_FMT_YUV420P,
                                         SWS_BICUBIC | SWS_ACCURATE_RND, NULL, NULL, NULL);
        if (!w->scaler) { av_frame_free(&f); return fail(error, BFV_ENCODE, 0, "cannot convert RGB to yuv420p"); }
        const int *coefficients = sws_getCoefficients(w->encoder->colorspace);
        sws_setColorspaceDetails(w->scaler, coefficients, 1, coefficients, w->full_range, 0, 1 << 16, 1 << 16);
        const uint8_t *planes[4] = {data, NULL, NULL, NULL};
        int strides[4] = {3 * width, 0, 0, 0};
        sws_scale(w->scaler, planes, strides, 0, eh, f->data, f->linesize);
        full_range = w->full_range;
    } else {
        for (int y = 0; y < eh; y++) memcpy(f->data[0] + (size_t)y * f->linesize[0], data + (size_t)y * width, (size_t)ew);
        for (size_t y = 0; y < ech; y++) {
            if (format == 0) {
                memcpy(f->data[1] + y * f->linesize[1], data + luma + y * cw, ecw);
                memcpy(f->data[2] + y * f->linesize[2], data + luma + cw * ch + y * cw, ecw);
            } else {
                memset(f->data[1] + y * f->linesize[1], 128, ecw);
                memset(f->data[2] + y * f->linesize[2], 128, ecw);
            }
        }
    }
    if (w->field_order) {
#ifdef AV_FRAME_FLAG_INTERLACED
        f->flags |= AV_FRAME_FLAG_INTERLACED | (w->field_order == 1 ? AV_FRAME_FLAG_TOP_FIELD_FIRST : 0);
#else
        f->interlaced_frame = 1;
        f->top_field_first = w->field_order == 1;
#endif
    }
    f->color_range = full_range ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
    f->colorspace = w->encoder->colorspace;
    f->color_primaries = w->encoder->color_primaries;
    f->color_trc = w->encoder->color_trc;
    f->pts = av_rescale_q(pts, (AVRational){tb_num, tb_den}, w->encoder->time_base);
    if (w->have_last && f->pts <= w->last_pts) f->pts = w->last_pts + 1;  // encoders need increasing times

    BFVStatus status = BFV_OK;
    if (w->held) status = send_held(w, f->pts - w->last_pts, error);
    if (w->have_last) w->last_duration = f->pts - w->last_pts;
    w->last_pts = f->pts;
    w->have_last = 1;
    w->held = f;
    if (status != BFV_OK) w->failed = 1;
    return status;
}

BFVStatus bfv_writer_finish(bfv_writer *w, BFVError *error) {
    begin(error);
    if (w->failed || w->finished) return fail(error, BFV_INVALID, 0, "the writer has failed or finished");
    // The last frame lasts as long as the one before it, or one frame at the rate given.
    int64_t duration = w->last_duration;
    if (duration <= 0 && w->frame_rate.num > 0 && w->frame_rate.den > 0)
        duration = av_rescale_q(1, av_inv_q(w->frame_rate), w->encoder->time_base);
    BFVStatus status = send_held(w, duration, error);
    if (status == BFV_OK) status = encode(w, NULL, error);
    detach(w);  // no packet from the reader after the trailer
    if (status != BFV_OK) { w->failed = 1; return status; }
    pthread_mutex_lock(&w->lock);
    int code = av_write_trailer(w->format);
    w->finished = 1;
    pthread_mutex_unlock(&w->lock);
    if (code < 0) { w->failed = 1; return fail(error, BFV_WRITE, code, NULL); }
    code = avio_closep(&w->format->pb);
    if (code < 0) { w->failed = 1; return fail(error, BFV_IO, code, NULL); }
    int fd = open(w->format->url, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        int saved = errno;
        if (fd >= 0) close(fd);
        w->failed = 1;
        return fail(error, BFV_IO, 0, "cannot sync the file: %s", strerror(saved));
    }
    close(fd);
    return BFV_OK;
}

int64_t bfv_writer_frames_written(const bfv_writer *w) { return w->frames_written; }

void bfv_writer_size(const bfv_writer *w, int *width, int *height) {
    *width = w->encoder->width;
    *height = w->encoder->height;
}

BFVStatus bfv_commit_file(const char *from, const char *to, BFVError *error) {
    begin(error);
    if (rename(from, to) != 0) return fail(error, BFV_IO, 0, "cannot move the finished file into place: %s", strerror(errno));
    // The rename itself is durable once the folder is synced.
    char *folder = av_strdup(to);
    if (!folder) return BFV_OK;
    char *slash = strrchr(folder, '/');
    if (slash == folder) slash[1] = 0;
    else if (slash) *slash = 0;
    else strcpy(folder, ".");
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) { fsync(fd); close(fd); }
    av_free(folder);
    return BFV_OK;
}
