// A small C layer over libjpeg-turbo. libjpeg reports errors by longjmp, which
// Swift cannot catch, so every libjpeg call happens here behind setjmp and
// comes back to Swift as a status code plus a message.
#ifndef CJPEGSUPPORT_H
#define CJPEGSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// What went wrong; `BJPG_OK` (0) on success.
typedef enum BJPGStatus {
    BJPG_OK = 0,
    BJPG_NOT_JPEG,       ///< The data does not start with a JPEG SOI marker.
    BJPG_TRUNCATED,      ///< The data ends before the image does.
    BJPG_CORRUPT,        ///< libjpeg refused the data; see the message.
    BJPG_TOO_LARGE,      ///< The header's size exceeds the caller's limits.
    BJPG_INVALID_SIZE,   ///< The header claims a zero width or height.
    BJPG_UNSUPPORTED,    ///< A colour space other than gray, YCbCr, RGB, CMYK or YCCK.
    BJPG_FAILED,         ///< Bad arguments.
} BJPGStatus;

/// Size limits checked against the frame header before anything is allocated.
typedef struct BJPGLimits {
    uint32_t max_width;
    uint32_t max_height;
    uint64_t max_pixels;
} BJPGLimits;

/// Reads the headers up to the first scan: sets `*width`, `*height` (also on
/// BJPG_TOO_LARGE) and `*components` (1 gray, 3 colour, 4 CMYK/YCCK).
BJPGStatus bjpg_read_header(const uint8_t *data, size_t size, BJPGLimits limits,
                            uint32_t *width, uint32_t *height, int *components,
                            char *message, size_t message_size);

/// Decodes a baseline or progressive JPEG into 8-bit RGB rows (gray replicated)
/// in `pixels`, which must hold exactly width * height * 3 bytes as reported by
/// `bjpg_read_header`. Decoded as Pillow does by default: the accurate integer
/// IDCT (JDCT_ISLOW) and fancy (triangle) chroma upsampling; CMYK and YCCK
/// converted to RGB as Pillow's `convert("RGB")` does (Adobe polarity, no colour
/// management). Data that ends before the last row is BJPG_TRUNCATED, not grey-filled.
BJPGStatus bjpg_decode_rgb8(const uint8_t *data, size_t size, BJPGLimits limits,
                            uint8_t *pixels, size_t pixels_size,
                            char *message, size_t message_size);

/// Encodes 8-bit RGB rows (width * 3 bytes each, no padding) as a baseline JPEG
/// with optimised Huffman tables and the accurate integer DCT, into a malloc'd
/// buffer returned in `*jpeg` / `*jpeg_size` (free it with `bjpg_free`).
/// `quality` is IJG's 1...100 scale; chroma is subsampled 2x2 (4:2:0) below 90 and
/// kept at full resolution (4:4:4) from 90 up. `exif` (TIFF data, at most 65527
/// bytes) goes in an APP1 "Exif" segment, `icc` in APP2 ICC_PROFILE segments
/// (several when it is over 65519 bytes); either may be NULL.
BJPGStatus bjpg_encode_rgb8(const uint8_t *pixels, uint32_t width, uint32_t height, int quality,
                            const uint8_t *exif, size_t exif_size,
                            const uint8_t *icc, size_t icc_size,
                            uint8_t **jpeg, size_t *jpeg_size,
                            char *message, size_t message_size);

/// `bjpg_encode_rgb8` for rows of `components` bytes a pixel: 3 (RGB) or 1 (a
/// grayscale JPEG, one component).
BJPGStatus bjpg_encode8(const uint8_t *pixels, uint32_t width, uint32_t height, int components, int quality,
                        const uint8_t *exif, size_t exif_size,
                        const uint8_t *icc, size_t icc_size,
                        uint8_t **jpeg, size_t *jpeg_size,
                        char *message, size_t message_size);

/// Frees a buffer returned by `bjpg_encode_rgb8` or `bjpg_encode8`.
void bjpg_free(void *pointer);

#endif
