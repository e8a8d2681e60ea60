// A small C layer over libpng. libpng reports errors by longjmp, which Swift
// cannot catch, so every libpng call happens here behind setjmp and comes back
// to Swift as a status code plus a message.
#ifndef CPNGSUPPORT_H
#define CPNGSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// What went wrong; `BPNG_OK` (0) on success.
typedef enum BPNGStatus {
    BPNG_OK = 0,
    BPNG_NOT_PNG,       ///< The data does not start with the PNG signature.
    BPNG_TRUNCATED,     ///< The data ends before the image does.
    BPNG_CORRUPT,       ///< libpng refused the data (bad CRC, missing chunk...).
    BPNG_TOO_LARGE,     ///< The header's size exceeds the caller's limits.
    BPNG_INVALID_SIZE,  ///< The header claims a zero width or height.
    BPNG_FAILED,        ///< Bad arguments or out of memory.
    BPNG_BAD_PROFILE,   ///< libpng refused the ICC profile to write (malformed, or a gray or CMYK one for RGB).
} BPNGStatus;

/// Size limits checked against IHDR before anything is allocated.
typedef struct BPNGLimits {
    uint32_t max_width;
    uint32_t max_height;
    uint64_t max_pixels;
} BPNGLimits;

/// Reads just the header: sets `*width` and `*height` (also on BPNG_TOO_LARGE
/// and BPNG_INVALID_SIZE). Use it to size the buffer for `bpng_decode_rgb8`.
BPNGStatus bpng_read_header(const uint8_t *data, size_t size, BPNGLimits limits,
                            uint32_t *width, uint32_t *height,
                            char *message, size_t message_size);

/// Decodes any PNG into 8-bit RGB (alpha dropped, gray replicated, 16-bit
/// scaled with rounding, no gamma) into `pixels`, which must hold exactly
/// width * height * 3 bytes as reported by `bpng_read_header`.
BPNGStatus bpng_decode_rgb8(const uint8_t *data, size_t size, BPNGLimits limits,
                            uint8_t *pixels, size_t pixels_size,
                            char *message, size_t message_size);

/// `bpng_decode_rgb8` with the alpha kept: 8-bit RGBA (tRNS made alpha; 255 where
/// the file has no alpha), `pixels` holding exactly width * height * 4 bytes.
BPNGStatus bpng_decode_rgba8(const uint8_t *data, size_t size, BPNGLimits limits,
                             uint8_t *pixels, size_t pixels_size,
                             char *message, size_t message_size);

/// Encodes 8-bit rows of `channels` bytes a pixel (1 gray, 2 gray and alpha, 3 RGB,
/// 4 RGBA; width * channels bytes a row, no padding), with an optional ICC profile
/// as `bpng_encode_rgb8_icc`, into a malloc'd buffer (free it with `bpng_free`).
BPNGStatus bpng_encode8(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                        const uint8_t *icc, size_t icc_size, uint8_t **png, size_t *png_size,
                        char *message, size_t message_size);

/// Encodes 8-bit RGB rows (width * 3 bytes each, no padding) as a PNG into a
/// malloc'd buffer returned in `*png` / `*png_size`; free it with `bpng_free`.
BPNGStatus bpng_encode_rgb8(const uint8_t *pixels, uint32_t width, uint32_t height,
                            uint8_t **png, size_t *png_size,
                            char *message, size_t message_size);

/// `bpng_encode_rgb8` with an ICC profile stored (zlib-compressed by libpng) in
/// an iCCP chunk; with a NULL or empty `icc`, the same bytes as `bpng_encode_rgb8`.
/// A profile libpng finds malformed (length, signature, tag table) is refused:
/// BPNG_FAILED with libpng's reason.
BPNGStatus bpng_encode_rgb8_icc(const uint8_t *pixels, uint32_t width, uint32_t height,
                                const uint8_t *icc, size_t icc_size,
                                uint8_t **png, size_t *png_size,
                                char *message, size_t message_size);

/// The ICC profile of a PNG's iCCP chunk, inflated by libpng (png_get_iCCP), into
/// a malloc'd buffer in `*icc` / `*icc_size` (free it with `bpng_free`); both are
/// NULL / 0 when the file has none or libpng judged it unusable.
BPNGStatus bpng_read_icc(const uint8_t *data, size_t size, uint8_t **icc, size_t *icc_size,
                         char *message, size_t message_size);

/// Frees a buffer returned by `bpng_encode_rgb8` or `bpng_read_icc`.
void bpng_free(void *pointer);

#endif
