// libpng behind setjmp: see CPNGSupport.h. Decoding reads from memory through
// png_set_read_fn; encoding writes to a growing malloc'd buffer.
#include "CPNGSupport.h"

#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// One call's state, shared with libpng's callbacks through its io/error pointers.
typedef struct Session {
    const uint8_t *data;             // decoder input
    size_t size, offset;
    uint8_t *out;                    // encoder output
    size_t out_size, out_capacity;
    BPNGStatus status;               // first failure wins
    BPNGStatus libpng_error_status;  // what a plain png_error means for this call
    char *message;
    size_t message_size;
} Session;

/// Records the first failure and its message; later ones are consequences.
static void fail(Session *s, BPNGStatus status, const char *format, ...) {
    if (s->status != BPNG_OK) return;
    s->status = status;
    if (s->message_size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(s->message, s->message_size, format, args);
    va_end(args);
}

static void on_error(png_structp png, png_const_charp text) {
    Session *s = png_get_error_ptr(png);
    fail(s, s->libpng_error_status, "%s", text);
    png_longjmp(png, 1);
}

/// Warnings (e.g. a bad ancillary CRC, an odd colour profile) do not stop decoding.
static void on_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static uint32_t big_endian32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/// The PNG CRC-32 (bitwise: it only ever covers the 17 bytes of IHDR here).
static uint32_t crc32_of(const uint8_t *p, size_t count) {
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < count; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void chunk_name(png_const_structrp png, char name[5]) {
    png_uint_32 type = png_get_io_chunk_type(png);
    for (int i = 0; i < 4; i++) {
        char c = (char)(type >> (24 - 8 * i));
        name[i] = (c >= 'A' && c <= 'z') ? c : '?';
    }
    name[4] = 0;
}

static void read_from_memory(png_structp png, png_bytep out, size_t count) {
    Session *s = png_get_io_ptr(png);
    if (count > s->size - s->offset) {
        char name[5];
        chunk_name(png, name);
        png_uint_32 state = png_get_io_state(png) & PNG_IO_MASK_LOC;
        if (png_get_io_chunk_type(png) == 0)
            fail(s, BPNG_TRUNCATED, "data ends after %zu bytes, in the first chunk header", s->size);
        else
            fail(s, BPNG_TRUNCATED, "data ends after %zu bytes, %s the %s chunk", s->size,
                 state == PNG_IO_CHUNK_HDR ? "in the chunk header after"
                 : state == PNG_IO_CHUNK_CRC ? "in the CRC of" : "in the data of", name);
        png_error(png, "truncated");
    }
    memcpy(out, s->data + s->offset, count);
    s->offset += count;
}

static void check_size(Session *s, BPNGLimits limits, uint32_t width, uint32_t height) {
    if (width == 0 || height == 0) {
        fail(s, BPNG_INVALID_SIZE, "IHDR gives a zero size (%ux%u)", width, height);
    } else if (width > limits.max_width || height > limits.max_height
               || (uint64_t)width * height > limits.max_pixels) {
        fail(s, BPNG_TOO_LARGE, "IHDR gives %ux%u pixels, over the limit of %ux%u and %llu pixels",
             width, height, limits.max_width, limits.max_height,
             (unsigned long long)limits.max_pixels);
    }
}

/// Checks the signature and, when a complete IHDR with a valid CRC is there, its
/// size against the limits: before libpng, which would first read on to IDAT.
static void precheck(Session *s, BPNGLimits limits, uint32_t *width, uint32_t *height) {
    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    const uint8_t *d = s->data;
    if (s->size == 0 || memcmp(d, signature, s->size < 8 ? s->size : 8) != 0) {
        fail(s, BPNG_NOT_PNG, "the data does not start with the PNG signature");
    } else if (s->size < 8) {
        fail(s, BPNG_TRUNCATED, "data ends after %zu bytes, inside the PNG signature", s->size);
    } else if (s->size >= 33 && big_endian32(d + 8) == 13 && memcmp(d + 12, "IHDR", 4) == 0
               && crc32_of(d + 12, 17) == big_endian32(d + 29)) {
        *width = big_endian32(d + 16);
        *height = big_endian32(d + 20);
        check_size(s, limits, *width, *height);
    }
}

/// Runs libpng over s->data; a NULL `pixels` stops after the header. It calls
/// setjmp, so everything read after a longjmp lives in *s, not in locals.
static void run_decoder(Session *s, BPNGLimits limits, uint32_t *width, uint32_t *height,
                        uint8_t *pixels, size_t pixels_size, int channels) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        fail(s, BPNG_FAILED, "out of memory creating the PNG reader");
        return;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return;
    }
    png_set_read_fn(png, s, read_from_memory);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);  // ours are checked below
    png_read_info(png, info);

    uint32_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    *width = w;
    *height = h;
    check_size(s, limits, w, h);
    if (s->status != BPNG_OK || pixels == NULL) {
        png_destroy_read_struct(&png, &info, NULL);
        return;
    }

    // To 8-bit RGB as stored: no gamma, not composited; alpha (and tRNS) dropped, or with 4
    // channels kept as a fourth byte (tRNS made alpha, 255 where the file has none).
    int color = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    int has_alpha = (color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0) {
        if (depth < 8) png_set_expand_gray_1_2_4_to_8(png);
        png_set_gray_to_rgb(png);
    }
    if (depth == 16) png_set_scale_16(png);
    if (channels == 4) {
        if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
        if (!has_alpha) png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    } else if (has_alpha) {
        png_set_strip_alpha(png);
    }
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);

    size_t stride = (size_t)w * (size_t)channels;
    if (png_get_rowbytes(png, info) != stride || pixels_size != stride * h) {
        fail(s, BPNG_FAILED, "internal error: %zu bytes per row and a %zu-byte buffer for %ux%u with %d channels",
             (size_t)png_get_rowbytes(png, info), pixels_size, w, h, channels);
        png_destroy_read_struct(&png, &info, NULL);
        return;
    }
    for (int pass = 0; pass < passes; pass++)
        for (uint32_t y = 0; y < h; y++) png_read_row(png, pixels + y * stride, NULL);
    png_read_end(png, NULL);  // reads to IEND, so a cut after the last IDAT is caught
    png_destroy_read_struct(&png, &info, NULL);
}

static Session new_session(char *message, size_t message_size) {
    Session s = {0};
    s.message = message;
    s.message_size = message ? message_size : 0;
    if (s.message_size > 0) message[0] = 0;
    return s;
}

BPNGStatus bpng_read_header(const uint8_t *data, size_t size, BPNGLimits limits,
                            uint32_t *width, uint32_t *height, char *message, size_t message_size) {
    Session s = new_session(message, message_size);
    s.data = data;
    s.size = data ? size : 0;
    s.libpng_error_status = BPNG_CORRUPT;
    *width = 0;
    *height = 0;
    precheck(&s, limits, width, height);
    if (s.status == BPNG_OK) run_decoder(&s, limits, width, height, NULL, 0, 3);
    return s.status;
}

static BPNGStatus decode8(const uint8_t *data, size_t size, BPNGLimits limits, uint8_t *pixels, size_t pixels_size,
                          int channels, char *message, size_t message_size) {
    Session s = new_session(message, message_size);
    s.data = data;
    s.size = data ? size : 0;
    s.libpng_error_status = BPNG_CORRUPT;
    uint32_t width = 0, height = 0;
    if (pixels == NULL) fail(&s, BPNG_FAILED, "no output buffer");
    precheck(&s, limits, &width, &height);
    if (s.status == BPNG_OK) run_decoder(&s, limits, &width, &height, pixels, pixels_size, channels);
    return s.status;
}

BPNGStatus bpng_decode_rgb8(const uint8_t *data, size_t size, BPNGLimits limits,
                            uint8_t *pixels, size_t pixels_size, char *message, size_t message_size) {
    return decode8(data, size, limits, pixels, pixels_size, 3, message, message_size);
}

BPNGStatus bpng_decode_rgba8(const uint8_t *data, size_t size, BPNGLimits limits,
                             uint8_t *pixels, size_t pixels_size, char *message, size_t message_size) {
    return decode8(data, size, limits, pixels, pixels_size, 4, message, message_size);
}

static void write_to_memory(png_structp png, png_bytep data, size_t count) {
    Session *s = png_get_io_ptr(png);
    if (count > s->out_capacity - s->out_size) {
        size_t capacity = s->out_capacity ? s->out_capacity : 4096;
        while (capacity - s->out_size < count && capacity <= SIZE_MAX / 2) capacity *= 2;
        uint8_t *grown = capacity - s->out_size >= count ? realloc(s->out, capacity) : NULL;
        if (grown == NULL) png_error(png, "out of memory for the encoded PNG");
        s->out = grown;
        s->out_capacity = capacity;
    }
    memcpy(s->out + s->out_size, data, count);
    s->out_size += count;
}

static void flush_nothing(png_structp png) {
    (void)png;
}

/// Encodes into s->out; calls setjmp, so its results live in *s.
static void run_encoder(Session *s, const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                        const uint8_t *icc, size_t icc_size) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, s, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        fail(s, BPNG_FAILED, "out of memory creating the PNG writer");
        return;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return;
    }
    png_set_write_fn(png, s, write_to_memory, flush_nothing);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_IHDR(png, info, width, height, 8, types[channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (icc != NULL && icc_size > 0) {
        if (icc_size > 0x7fffffff) png_error(png, "the ICC profile is too large");
        // libpng checks the profile here and, when it is malformed, warns and leaves it out. Its
        // list of "known incorrect" sRGB profiles (early HP/Microsoft ones, common in photos) is
        // a nag, not a fault: such a profile is copied as the input had it.
#if defined(PNG_SKIP_sRGB_CHECK_PROFILE) && defined(PNG_SET_OPTION_SUPPORTED)
        png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
#endif
        s->libpng_error_status = BPNG_BAD_PROFILE;   // libpng's error here is about the profile
        png_set_iCCP(png, info, "ICC Profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
        if (!png_get_valid(png, info, PNG_INFO_iCCP)) png_error(png, "libpng refused the ICC profile as malformed");
        s->libpng_error_status = BPNG_FAILED;
    }
    png_write_info(png, info);
    size_t stride = (size_t)width * (size_t)channels;
    for (uint32_t y = 0; y < height; y++) png_write_row(png, pixels + y * stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
}

BPNGStatus bpng_encode8(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                        const uint8_t *icc, size_t icc_size, uint8_t **png, size_t *png_size,
                        char *message, size_t message_size) {
    Session s = new_session(message, message_size);
    s.libpng_error_status = BPNG_FAILED;
    *png = NULL;
    *png_size = 0;
    if (pixels == NULL || width == 0 || height == 0) {
        fail(&s, BPNG_INVALID_SIZE, "cannot encode a %ux%u image", width, height);
        return s.status;
    }
    if (channels < 1 || channels > 4) {
        fail(&s, BPNG_FAILED, "cannot encode %d channels", channels);
        return s.status;
    }
    run_encoder(&s, pixels, width, height, channels, icc, icc_size);
    if (s.status != BPNG_OK) {
        free(s.out);
        return s.status;
    }
    *png = s.out;
    *png_size = s.out_size;
    return BPNG_OK;
}

BPNGStatus bpng_encode_rgb8(const uint8_t *pixels, uint32_t width, uint32_t height,
                            uint8_t **png, size_t *png_size, char *message, size_t message_size) {
    return bpng_encode8(pixels, width, height, 3, NULL, 0, png, png_size, message, message_size);
}

BPNGStatus bpng_encode_rgb8_icc(const uint8_t *pixels, uint32_t width, uint32_t height,
                                const uint8_t *icc, size_t icc_size,
                                uint8_t **png, size_t *png_size,
                                char *message, size_t message_size) {
    return bpng_encode8(pixels, width, height, 3, icc, icc_size, png, png_size, message, message_size);
}

/// Reads the chunks before the image data and copies iCCP's profile into s->out;
/// calls setjmp, so its results live in *s.
static void run_icc_reader(Session *s) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        fail(s, BPNG_FAILED, "out of memory creating the PNG reader");
        return;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return;
    }
    png_set_read_fn(png, s, read_from_memory);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);  // iCCP comes before PLTE and IDAT, so it has been read
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 length = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &length) && profile != NULL && length > 0) {
        s->out = malloc(length);
        if (s->out == NULL) png_error(png, "out of memory for the ICC profile");
        memcpy(s->out, profile, length);
        s->out_size = length;
    }
    png_destroy_read_struct(&png, &info, NULL);
}

BPNGStatus bpng_read_icc(const uint8_t *data, size_t size, uint8_t **icc, size_t *icc_size,
                         char *message, size_t message_size) {
    Session s = new_session(message, message_size);
    s.data = data;
    s.size = data ? size : 0;
    s.libpng_error_status = BPNG_CORRUPT;
    *icc = NULL;
    *icc_size = 0;
    BPNGLimits none = {0xffffffffu, 0xffffffffu, UINT64_MAX};
    uint32_t width = 0, height = 0;
    precheck(&s, none, &width, &height);
    if (s.status == BPNG_OK) run_icc_reader(&s);
    if (s.status != BPNG_OK) {
        free(s.out);
        return s.status;
    }
    *icc = s.out;
    *icc_size = s.out_size;
    return BPNG_OK;
}

void bpng_free(void *pointer) {
    free(pointer);
}
