/* png_probe — pixel facts of a browser screenshot of an hspz report (tests/bats/report.bats).
 *
 *   hz_png_probe SHOT.png PW PH
 *
 * Finds the dot plot's frame (a dark grey 1-px rectangle around a PW x PH plot area; its top
 * edge is the first row with a run of at least PW dark pixels) and counts the pixels inside
 * it: "plus" (blue clearly above red: plus-strand HSPs), "minus" (red clearly above blue),
 * "grey" (other non-white: grid lines), "white".  Prints one line
 *   frame X Y bottom OK plus N minus N grey N white N
 * (X, Y: the frame's top-left pixel; OK 1 when the bottom edge is where PH puts it).  Exit 0,
 * 1 when no frame is found, 2 on usage or an unreadable PNG.  PNG decoding is cairo's. */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void px(const unsigned char *d, int stride, int x, int y, int *r, int *g, int *b)
{
    uint32_t v = *(const uint32_t *)(d + (size_t)y * stride + 4 * (size_t)x);   /* (A)RGB, native endian */
    *r = (v >> 16) & 255; *g = (v >> 8) & 255; *b = v & 255;
}

static int dark(const unsigned char *d, int stride, int x, int y)
{
    int r, g, b;
    px(d, stride, x, y, &r, &g, &b);
    return r < 110 && g < 110 && b < 110 && abs(r - b) < 20;
}

int main(int argc, char **argv)
{
    if (argc != 4) { fprintf(stderr, "usage: hz_png_probe SHOT.png PW PH\n"); return 2; }
    int PW = atoi(argv[2]), PH = atoi(argv[3]);
    cairo_surface_t *s = cairo_image_surface_create_from_png(argv[1]);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) { fprintf(stderr, "%s: %s\n", argv[1], cairo_status_to_string(cairo_surface_status(s))); return 2; }
    cairo_surface_flush(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    int W = cairo_image_surface_get_width(s), H = cairo_image_surface_get_height(s), st = cairo_image_surface_get_stride(s);
    int fx = -1, fy = -1;
    for (int y = 0; y < H && fx < 0; y++)
        for (int x = 0, run = 0; x < W; x++) {
            run = dark(d, st, x, y) ? run + 1 : 0;
            if (run >= PW) { fx = x - run + 1; fy = y; break; }
        }
    if (fx < 0) { printf("no frame of width %d in %dx%d\n", PW, W, H); return 1; }
    int bottom = fy + PH + 1 < H && dark(d, st, fx + PW / 2, fy + PH + 1);
    long n[4] = { 0, 0, 0, 0 };
    for (int y = fy + 1; y <= fy + PH && y < H; y++)
        for (int x = fx + 1; x <= fx + PW && x < W; x++) {
            int r, g, b;
            px(d, st, x, y, &r, &g, &b);
            if (b - r > 40) n[0]++;
            else if (r - b > 40) n[1]++;
            else if (r < 245 || g < 245 || b < 245) n[2]++;
            else n[3]++;
        }
    printf("frame %d %d bottom %d plus %ld minus %ld grey %ld white %ld\n", fx, fy, bottom, n[0], n[1], n[2], n[3]);
    cairo_surface_destroy(s);
    return 0;
}
