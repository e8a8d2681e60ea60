// A small C layer over FFmpeg's libraries (libavformat, libavcodec, libavutil, libswscale):
// demux and decode one video stream to packed 8-bit YUV 4:2:0, encode frames back and copy
// the other streams packet for packet. Every FFmpeg failure comes back as a status plus a
// message (av_strerror's text, and the last error FFmpeg logged on this thread); FFmpeg's
// macros (AVERROR(EAGAIN), AV_NOPTS_VALUE...) and structs stay on this side.
#ifndef CFFMPEGSUPPORT_H
#define CFFMPEGSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// What went wrong; `BFV_OK` (0) on success.
typedef enum BFVStatus {
    BFV_OK = 0,
    BFV_END,             ///< No more frames (not an error).
    BFV_IO,              ///< The file cannot be opened, read, written, synced or renamed.
    BFV_NOT_VIDEO,       ///< FFmpeg does not recognise the data, or it holds no decodable video stream.
    BFV_NO_DECODER,      ///< The video codec has no decoder in this FFmpeg.
    BFV_TOO_LARGE,       ///< The picture's size is over the caller's limits (refused before decoding).
    BFV_DEMUX,           ///< The container could not be read past some point (truncated or corrupt).
    BFV_DECODE,          ///< The decoder refused a packet or a frame.
    BFV_TRUNCATED,       ///< The file ends before the frames its container declares.
    BFV_ENCODE,          ///< The encoder could not be opened or refused a frame.
    BFV_WRITE,           ///< The muxer could not write a header, packet or trailer.
    BFV_UNSUPPORTED,     ///< A codec, container or stream that this build cannot write.
    BFV_INVALID,         ///< Bad arguments (sizes, time bases, a frame of the wrong size).
    BFV_NO_MEMORY,       ///< An allocation failed.
} BFVStatus;

/// A failure's text: `message` is av_strerror's sentence (or ours), `detail` the last error
/// FFmpeg logged on this thread during the call ("moov atom not found"), empty if none.
typedef struct BFVError {
    char message[256];
    char detail[256];
} BFVError;

/// Kinds of streams (FFmpeg's AVMediaType plus attached pictures, which are video to FFmpeg).
typedef enum BFVStreamKind {
    BFV_KIND_UNKNOWN = 0,
    BFV_KIND_VIDEO,
    BFV_KIND_AUDIO,
    BFV_KIND_SUBTITLE,
    BFV_KIND_DATA,
    BFV_KIND_ATTACHMENT,
    BFV_KIND_ATTACHED_PICTURE,  ///< Cover art: a picture stored as a one-packet video stream.
} BFVStreamKind;

/// One stream of the input.
typedef struct BFVStreamInfo {
    int index;
    BFVStreamKind kind;
    char codec[32];      ///< avcodec_get_name ("aac", "mov_text", "none").
    char language[16];   ///< The `language` tag, or empty.
} BFVStreamInfo;

/// What the reader learnt about the input when it opened it.
typedef struct BFVReaderInfo {
    char container[64];       ///< The demuxer's name ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm").
    char codec[32];           ///< The video codec ("h264", "hevc", "vp9").
    char pixel_format[32];    ///< The decoder's pixel format ("yuv420p", "yuv420p10le"), or empty.
    int bit_depth;            ///< Bits of the first component of that format (8, 10, 12), 0 if unknown.
    int video_index;          ///< The video stream's index among the input's streams.
    int stream_count;
    int stored_width, stored_height;  ///< The coded picture's size, before rotation.
    int width, height;                ///< The size of the frames delivered (rotation applied or not).
    int rotation;             ///< Clockwise degrees (0, 90, 180, 270) that turn the stored picture upright.
    int applied_rotation;     ///< What the reader applies: `rotation`, or 0 when told not to.
    int tb_num, tb_den;       ///< The video stream's time base.
    int rate_num, rate_den;   ///< Its average frame rate (0/1 if unknown).
    int64_t duration;         ///< Its duration in `tb` units, or -1 if unknown.
    int64_t frame_count;      ///< Frames the container declares (nb_frames), or -1 (estimated later).
    int color_range, color_space, color_primaries, color_trc;  ///< FFmpeg's AVCOL_* values.
    int full_range;           ///< The frames delivered are full (JPEG) range.
    int field_order;          ///< 0 progressive or unknown, 1 interlaced top field first, 2 bottom first
                              ///< (0 when the reader turns the frames).
} BFVReaderInfo;

/// Limits checked against the stream's declared size before anything is decoded.
typedef struct BFVLimits {
    int max_side;         ///< Each side at most this many pixels.
    int64_t max_pixels;   ///< Width x height at most this.
} BFVLimits;

typedef struct bfv_reader bfv_reader;
typedef struct bfv_writer bfv_writer;

/// Opens `url` (a file path, or "-" for standard input) and its best video stream, with `threads`
/// decoding threads (0: FFmpeg's choice). `apply_rotation`: turn frames upright.
bfv_reader *bfv_reader_open(const char *url, int apply_rotation, BFVLimits limits, int threads,
                            BFVReaderInfo *info, BFVStatus *status, BFVError *error);
/// Opens `size` bytes in memory (copied) as above.
bfv_reader *bfv_reader_open_memory(const uint8_t *data, size_t size, int apply_rotation, BFVLimits limits,
                                   int threads, BFVReaderInfo *info, BFVStatus *status, BFVError *error);
/// Whether `url` holds a container FFmpeg recognises by content with a decodable video stream
/// (still-image demuxers, PNG/JPEG/..., answer no).
int bfv_probe(const char *url);
/// Stream `index` of the input.
BFVStatus bfv_reader_stream(const bfv_reader *reader, int index, BFVStreamInfo *out);
/// A stream tag (container's when `stream` < 0), "" if absent (for tests and reports).
void bfv_reader_tag(const bfv_reader *reader, int stream, const char *key, char *out, size_t out_size);
/// Bytes of one delivered frame (packed I420 of info->width x info->height, or packed RGB24
/// after `bfv_reader_deliver_rgb`).
size_t bfv_reader_frame_size(const bfv_reader *reader);
/// With `rgb` non-zero, frames are delivered as packed RGB24 of the stored size, unturned (a
/// picture's pixels, with no trip through 4:2:0); only before the first frame, on a reader
/// opened without applying rotation.
void bfv_reader_deliver_rgb(bfv_reader *reader, int rgb);
/// Decodes the next frame into `out` (`bfv_reader_frame_size` bytes) and its presentation time in
/// the stream's time base. BFV_END at the end. Packets of the streams an attached writer copies
/// go to it on the way.
BFVStatus bfv_reader_next_frame(bfv_reader *reader, uint8_t *out, size_t out_size, int64_t *pts,
                                BFVError *error);
/// With `skip` non-zero, a damaged packet or frame (a read or decode failure that is not the
/// file's end) is dropped and counted instead of ending the read, as the ffmpeg tool goes on;
/// 100 failures in a row still end it. Off by default.
void bfv_reader_skip_damaged(bfv_reader *reader, int skip);
/// The packets and frames dropped so far with `bfv_reader_skip_damaged`, and what FFmpeg said
/// of the first one in `first` ("" if none).
int64_t bfv_reader_damaged(const bfv_reader *reader, char *first, size_t first_size);
/// How the last frame delivered was scanned: 0 progressive, 1 interlaced with the top field
/// first, 2 with the bottom field first (always 0 when the reader turns the frames upright).
int bfv_reader_scan(const bfv_reader *reader);
/// Video packets demuxed so far (for tests).
int64_t bfv_reader_packets_read(const bfv_reader *reader);
void bfv_reader_close(bfv_reader *reader);

/// The video codecs the writer encodes.
typedef enum BFVCodec { BFV_CODEC_H264 = 1, BFV_CODEC_HEVC, BFV_CODEC_VP9 } BFVCodec;

/// Everything the writer needs to open its encoder and muxer.
typedef struct BFVWriterConfig {
    const char *path;          ///< Where the muxer writes (the temporary file).
    const char *format_name;   ///< The name the container is guessed from (the final file's).
    int width, height;
    int tb_num, tb_den;        ///< The frames' time base, used as the encoder's.
    int rate_num, rate_den;    ///< The frame rate guess (for rate control), 0/0 if none.
    BFVCodec codec;
    int crf;                   ///< Constant quality, < 0 for the codec's default.
    const char *preset;        ///< x264/x265 preset, NULL for ours (superfast); VP9: ignored.
    int cpu_used;              ///< VP9 speed (0-8), < 0 for ours.
    const char *deadline;      ///< VP9 deadline ("realtime", "good"), NULL for ours.
    int threads;               ///< Encoder threads, 0 for FFmpeg's choice.
    int color_range, color_space, color_primaries, color_trc;
    int keep_metadata;         ///< Copy container and stream tags (else only `language`).
    int keep_location;         ///< With keep_metadata, also keys naming `location` or `gps`.
    int field_order;           ///< H.264: 1 or 2 encode interlaced, top or bottom field first (at heights divisible by 4); 0 progressive.
} BFVWriterConfig;

/// Whether the container of `format_name` (by extension) can hold the reader's stream `index`:
/// 1 yes, 0 no, -1 unknown.
int bfv_container_can_hold(const char *format_name, const bfv_reader *reader, int index);
/// Whether the text of stream `index`'s first `packets` packets in the file at `path` places the
/// recording: drones and dash cameras write their telemetry as a subtitle track ("GPS(8.5402,
/// 47.3713, 420)", "[latitude: 47.371302]"). 1 if one does; 0 if none does or it cannot be read.
int bfv_stream_text_names_location(const char *path, int index, int packets);
/// Whether FFmpeg has the encoder for `codec` (libx264, libx265, libvpx-vp9).
int bfv_has_encoder(BFVCodec codec);
/// Opens the encoder and the muxer, adds the reader's streams `copy` (input indexes; reader may be
/// NULL with count 0), writes the header and attaches itself to the reader so that those streams'
/// packets flow through while frames are read.
bfv_writer *bfv_writer_open(const BFVWriterConfig *config, bfv_reader *reader, const int *copy, int copy_count,
                            BFVStatus *status, BFVError *error);
/// Encodes one frame: `format` 0 I420, 1 gray, 2 RGB, packed, of the writer's size; `pts` in
/// `tb_num/tb_den`.
BFVStatus bfv_writer_write_frame(bfv_writer *writer, int format, const uint8_t *data, size_t size, int width,
                                 int height, int full_range, int64_t pts, int tb_num, int tb_den, BFVError *error);
/// Flushes the encoder, writes the trailer, closes and fsyncs the file.
BFVStatus bfv_writer_finish(bfv_writer *writer, BFVError *error);
/// Detaches from the reader and frees everything (the file is left for the caller to remove).
void bfv_writer_close(bfv_writer *writer);
/// The encoded picture's size: the frames', less an odd last column or row for H.264 and HEVC.
void bfv_writer_size(const bfv_writer *writer, int *width, int *height);
/// Video packets written so far (for tests).
int64_t bfv_writer_frames_written(const bfv_writer *writer);

/// Renames `from` over `to` and fsyncs the folder.
BFVStatus bfv_commit_file(const char *from, const char *to, BFVError *error);

#endif
