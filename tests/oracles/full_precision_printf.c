/* Loaded ahead of the C library (LD_PRELOAD) into the reference trec_eval, so that
 * every value it prints with "%6.4f" comes out with all 17 significant digits
 * ("%.17g") and the tests can compare values bit for bit. Nothing else changes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int printf(const char *format, ...) {
    char widened[1024];
    const char *at = strstr(format, "%6.4f");
    va_list args;
    int written;

    va_start(args, format);
    if (at != NULL && strlen(format) + 8 < sizeof widened) {
        size_t head = (size_t)(at - format);
        memcpy(widened, format, head);
        strcpy(widened + head, "%.17g");
        strcat(widened, at + strlen("%6.4f"));
        written = vprintf(widened, args);
    } else {
        written = vprintf(format, args);
    }
    va_end(args);
    return written;
}
