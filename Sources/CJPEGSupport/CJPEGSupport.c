// libjpeg-turbo behind setjmp: see CJPEGSupport.h. Input is read from memory
// through our own source manager, so running out of data is an error (libjpeg's
// memory source would pad the image with grey and only warn).
#include "CJPEGSupport.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

/// Progressive files with more scans than this are refused: a few kilobytes of
/// tiny scans can otherwise keep the decoder busy for minutes.
#define BJPG_MAX_SCANS 1000

/// One call's state, reached from libjpeg's callbacks through `cinfo->err`.
typedef struct Session {
    struct jpeg_error_mgr error;  // first, so a j_common_ptr's err is a Session*
    struct jpeg_source_mgr source;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    size_t size;
    int rows_done;                // all scanlines read: a missing EOI is harmless
    BJPGStatus status;            // first failure wins
    char *message;
    size_t message_size;
} Session;

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

/// Records the first failure and its message; later ones are consequences.
static void fail(Session *s, BJPGStatus status, const char *format, ...) {
    if (s->status != BJPG_OK) return;
    s->status = status;
    if (s->message_size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(s->message, s->message_size, format, args);
    va_end(args);
}

static void on_error_exit(j_common_ptr cinfo) {
    Session *s = (Session *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    fail(s, BJPG_CORRUPT, "%s", text);
    longjmp(s->jump, 1);
}

/// Warnings (extraneous bytes, a bad Huffman code that libjpeg recovers from)
/// do not stop decoding, as in Pillow.
static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

/// Called only when all the data has been consumed.
static boolean source_fill(j_decompress_ptr cinfo) {
    Session *s = (Session *)cinfo->err;
    if (s->rows_done) {  // only the trailing EOI is missing: end cleanly
        cinfo->src->next_input_byte = fake_eoi;
        cinfo->src->bytes_in_buffer = 2;
        return TRUE;
    }
    fail(s, BJPG_TRUNCATED, "data ends after %zu bytes, before the image is complete", s->size);
    longjmp(s->jump, 1);
    return FALSE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    while ((size_t)count > src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        src->bytes_in_buffer = 0;
        (void)source_fill(cinfo);  // errors out unless only EOI is missing
    }
    src->next_input_byte += count;
    src->bytes_in_buffer -= (size_t)count;
}

static void on_progress(j_common_ptr cinfo) {
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > BJPG_MAX_SCANS) {
        Session *s = (Session *)cinfo->err;
        fail(s, BJPG_CORRUPT, "more than %d scans", BJPG_MAX_SCANS);
        longjmp(s->jump, 1);
    }
}

static void begin(Session *s, struct jpeg_decompress_struct *cinfo, const uint8_t *data, size_t size,
                  char *message, size_t message_size) {
    memset(s, 0, sizeof *s);
    s->size = size;
    s->message = message;
    s->message_size = message_size;
    if (message_size > 0) message[0] = 0;
    cinfo->err = jpeg_std_error(&s->error);
    s->error.error_exit = on_error_exit;
    s->error.output_message = on_output_message;
    s->source.init_source = source_init;
    s->source.fill_input_buffer = source_fill;
    s->source.skip_input_data = source_skip;
    s->source.resync_to_restart = jpeg_resync_to_restart;
    s->source.term_source = source_term;
    s->source.next_input_byte = data;
    s->source.bytes_in_buffer = size;
    s->progress.progress_monitor = on_progress;
}

/// Reads the header into `cinfo` and checks it; a status, or BJPG_OK.
/// Must run after setjmp: libjpeg errors longjmp out of it.
static BJPGStatus check_header(Session *s, struct jpeg_decompress_struct *cinfo, BJPGLimits limits,
                               uint32_t *width, uint32_t *height, int *components) {
    jpeg_read_header(cinfo, TRUE);
    *width = cinfo->image_width;
    *height = cinfo->image_height;
    *components = cinfo->num_components;
    if (cinfo->image_width == 0 || cinfo->image_height == 0) {
        fail(s, BJPG_INVALID_SIZE, "zero-sized image");
        return s->status;
    }
    if (cinfo->image_width > limits.max_width || cinfo->image_height > limits.max_height ||
        (uint64_t)cinfo->image_width * cinfo->image_height > limits.max_pixels) {
        fail(s, BJPG_TOO_LARGE, "%ux%u", cinfo->image_width, cinfo->image_height);
        return s->status;
    }
    // The pixels claimed must fit the data present, checked before anything is allocated: a
    // few hundred bytes claiming 100 megapixels would otherwise cost 300 MB and decode to
    // grey. Every 8x8 block of the largest component carries at least one Huffman-coded bit
    // (its DC difference), so N bytes hold at most 512 N pixels; twice that is allowed.
    // Arithmetic coding codes a flat run in a fraction of a bit: 64 times more room.
    uint64_t per_byte = cinfo->arith_code ? 65536 : 1024;
    uint64_t pixels = (uint64_t)cinfo->image_width * cinfo->image_height;
    if (pixels > per_byte * (uint64_t)s->size) {
        fail(s, BJPG_TRUNCATED, "its header claims %ux%u pixels, more than its %zu bytes can hold "
             "(at most %llu): truncated, or not a real picture", cinfo->image_width, cinfo->image_height,
             s->size, (unsigned long long)(per_byte * (uint64_t)s->size));
        return s->status;
    }
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE: case JCS_YCbCr: case JCS_RGB: case JCS_CMYK: case JCS_YCCK: break;
    default:
        fail(s, BJPG_UNSUPPORTED, "colour space %d is not supported (gray, YCbCr, RGB, CMYK and YCCK are)",
             (int)cinfo->jpeg_color_space);
        return s->status;
    }
    return BJPG_OK;
}

/// One row of CMYK as libjpeg gives it (Adobe's polarity, inverted, as Photoshop writes it and
/// as Pillow assumes for every CMYK JPEG) to RGB as Pillow converts it: with c = 255 - C' and
/// k = 255 - K', R = K' - K' * c / 255 (Pillow's rounding of the product), G and B alike.
/// No colour management: Pillow's `convert("RGB")` does none either.
static void cmyk_row_to_rgb(const JSAMPLE *cmyk, uint8_t *rgb, uint32_t width) {
    for (uint32_t x = 0; x < width; x++, cmyk += 4, rgb += 3) {
        int nk = cmyk[3];
        for (int i = 0; i < 3; i++) {
            int t = (255 - cmyk[i]) * nk + 128;
            rgb[i] = (uint8_t)(nk - (((t >> 8) + t) >> 8));
        }
    }
}

static int starts_with_soi(const uint8_t *data, size_t size) {
    return data != NULL && size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

BJPGStatus bjpg_read_header(const uint8_t *data, size_t size, BJPGLimits limits,
                            uint32_t *width, uint32_t *height, int *components,
                            char *message, size_t message_size) {
    if (width == NULL || height == NULL || components == NULL) return BJPG_FAILED;
    *width = *height = 0;
    *components = 0;
    if (!starts_with_soi(data, size)) return BJPG_NOT_JPEG;
    Session s;
    struct jpeg_decompress_struct cinfo;
    begin(&s, &cinfo, data, size, message, message_size);
    if (setjmp(s.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return s.status == BJPG_OK ? BJPG_CORRUPT : s.status;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.src = &s.source;
    cinfo.progress = &s.progress;
    BJPGStatus status = check_header(&s, &cinfo, limits, width, height, components);
    jpeg_destroy_decompress(&cinfo);
    return status;
}

BJPGStatus bjpg_decode_rgb8(const uint8_t *data, size_t size, BJPGLimits limits,
                            uint8_t *pixels, size_t pixels_size,
                            char *message, size_t message_size) {
    if (pixels == NULL) return BJPG_FAILED;
    if (!starts_with_soi(data, size)) return BJPG_NOT_JPEG;
    Session s;
    struct jpeg_decompress_struct cinfo;
    begin(&s, &cinfo, data, size, message, message_size);
    if (setjmp(s.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return s.status == BJPG_OK ? BJPG_CORRUPT : s.status;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.src = &s.source;
    cinfo.progress = &s.progress;
    uint32_t width, height;
    int components;
    BJPGStatus status = check_header(&s, &cinfo, limits, &width, &height, &components);
    if (status != BJPG_OK) {
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    if ((uint64_t)width * height * 3 != pixels_size) {
        jpeg_destroy_decompress(&cinfo);
        return BJPG_FAILED;
    }
    // Pillow's defaults: accurate integer IDCT, fancy upsampling, full size. CMYK and YCCK
    // come out as CMYK (libjpeg turns YCCK into it) and are converted row by row.
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.do_fancy_upsampling = TRUE;
    cinfo.scale_num = cinfo.scale_denom = 1;
    jpeg_start_decompress(&cinfo);
    int expected = cmyk ? 4 : 3;
    if (cinfo.output_width != width || cinfo.output_height != height || cinfo.output_components != expected) {
        fail(&s, BJPG_CORRUPT, "decoder output %ux%ux%d, expected %ux%ux%d", cinfo.output_width,
             cinfo.output_height, cinfo.output_components, width, height, expected);
        jpeg_destroy_decompress(&cinfo);
        return s.status;
    }
    size_t stride = (size_t)width * 3;
    // The CMYK row lives in libjpeg's image pool: jpeg_destroy_decompress frees it, after a
    // longjmp too.
    JSAMPARRAY cmyk_row = cmyk ? (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE, width * 4, 1) : NULL;
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
        if (cmyk) {
            jpeg_read_scanlines(&cinfo, cmyk_row, 1);
            cmyk_row_to_rgb(cmyk_row[0], row, width);
        } else {
            jpeg_read_scanlines(&cinfo, &row, 1);
        }
    }
    s.rows_done = 1;
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return BJPG_OK;
}

// MARK: - Encoding

/// One encoding call's state; the output pointers live here, not in locals, so
/// that they survive a longjmp.
typedef struct EncodeSession {
    struct jpeg_error_mgr error;  // first, so a j_common_ptr's err is an EncodeSession*
    jmp_buf jump;
    unsigned char *out;
    unsigned long out_size;
    BJPGStatus status;
    char *message;
    size_t message_size;
} EncodeSession;

static void on_encode_error_exit(j_common_ptr cinfo) {
    EncodeSession *s = (EncodeSession *)cinfo->err;
    if (s->status == BJPG_OK) {
        s->status = BJPG_FAILED;
        if (s->message_size > 0) (*cinfo->err->format_message)(cinfo, s->message);
    }
    longjmp(s->jump, 1);
}

/// The largest EXIF block one APP1 segment holds: 65535 less the length field and "Exif\0\0".
#define BJPG_MAX_EXIF (65535 - 2 - 6)

BJPGStatus bjpg_encode_rgb8(const uint8_t *pixels, uint32_t width, uint32_t height, int quality,
                            const uint8_t *exif, size_t exif_size,
                            const uint8_t *icc, size_t icc_size,
                            uint8_t **jpeg, size_t *jpeg_size,
                            char *message, size_t message_size) {
    return bjpg_encode8(pixels, width, height, 3, quality, exif, exif_size, icc, icc_size, jpeg, jpeg_size, message, message_size);
}

BJPGStatus bjpg_encode8(const uint8_t *pixels, uint32_t width, uint32_t height, int components, int quality,
                        const uint8_t *exif, size_t exif_size,
                        const uint8_t *icc, size_t icc_size,
                        uint8_t **jpeg, size_t *jpeg_size,
                        char *message, size_t message_size) {
    if (jpeg == NULL || jpeg_size == NULL) return BJPG_FAILED;
    if (components != 1 && components != 3) return BJPG_FAILED;
    *jpeg = NULL;
    *jpeg_size = 0;
    if (message_size > 0) message[0] = 0;
    if (pixels == NULL || width == 0 || height == 0 || width > 65500 || height > 65500) {
        if (message_size > 0) snprintf(message, message_size, "cannot encode a %ux%u image (JPEG sides are 1...65500)", width, height);
        return BJPG_INVALID_SIZE;
    }
    if (exif != NULL && exif_size > BJPG_MAX_EXIF) {
        if (message_size > 0) snprintf(message, message_size, "the EXIF block has %zu bytes, over the %d one APP1 segment holds", exif_size, BJPG_MAX_EXIF);
        return BJPG_FAILED;
    }
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;

    EncodeSession s;
    memset(&s, 0, sizeof s);
    s.message = message;
    s.message_size = message_size;
    struct jpeg_compress_struct cinfo;
    cinfo.err = jpeg_std_error(&s.error);
    s.error.error_exit = on_encode_error_exit;
    s.error.output_message = on_output_message;
    if (setjmp(s.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(s.out);
        return s.status == BJPG_OK ? BJPG_FAILED : s.status;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &s.out, &s.out_size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    cinfo.dct_method = JDCT_ISLOW;
    // jpeg_set_defaults subsamples chroma 2x2; from quality 90 up keep it whole, as ImageMagick does.
    if (quality >= 90) cinfo.comp_info[0].h_samp_factor = cinfo.comp_info[0].v_samp_factor = 1;
    jpeg_start_compress(&cinfo, TRUE);
    if (exif != NULL && exif_size > 0) {
        unsigned char segment[6 + BJPG_MAX_EXIF];
        memcpy(segment, "Exif\0\0", 6);
        memcpy(segment + 6, exif, exif_size);
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, segment, (unsigned int)(6 + exif_size));
    }
    if (icc != NULL && icc_size > 0) jpeg_write_icc_profile(&cinfo, icc, (unsigned int)icc_size);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *jpeg = s.out;
    *jpeg_size = s.out_size;
    return BJPG_OK;
}

void bjpg_free(void *pointer) {
    free(pointer);
}
