/* Internal: decoding one frame (encoding is public, in sabot_shoe.h). */
#ifndef SABOT_FRAMING_H
#define SABOT_FRAMING_H

#include "sabot_shoe.h"

#define SABOT_MAX_BODY (4 + SABOT_MAX_PAYLOAD + 2)   /* 70 */
#define SABOT_MAX_ENCODED (SABOT_MAX_BODY + 2)       /* COBS adds at most 1 here; 72 */

typedef struct {
    uint8_t type, seq, ack, length;
    uint8_t payload[SABOT_MAX_PAYLOAD];
} frame;

typedef enum { FRAME_OK, FRAME_CRC, FRAME_BAD } frame_status;

/* One frame from the bytes between two delimiters (the delimiter excluded). */
frame_status frame_decode(const uint8_t *piece, size_t length, frame *decoded);

#endif
