/* Frames on the wire: COBS(version type seq ack payload crc16) 0x00 (docs/protocol.md 1). */
#include "framing.h"

#define FRAME_VERSION 1
#define HEADER 4
#define CRC_SIZE 2

uint16_t sabot_crc16(const uint8_t *data, size_t length)
{
    /* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor. */
    uint16_t crc = 0xFFFF;
    for (size_t i = 0; i < length; i++) {
        crc ^= (uint16_t)data[i] << 8;
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

static size_t cobs_encode(const uint8_t *in, size_t length, uint8_t *out)
{
    size_t code_at = 0, written = 1;
    uint8_t code = 1;
    for (size_t i = 0; i < length; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            code_at = written++;
            code = 1;
            continue;
        }
        out[written++] = in[i];
        if (++code == 0xFF) {
            out[code_at] = code;
            code_at = written++;
            code = 1;
        }
    }
    out[code_at] = code;
    return written;
}

/* Returns the decoded length, or -1 for a piece that is not COBS (or decodes too long). */
static int cobs_decode(const uint8_t *in, size_t length, uint8_t *out, size_t room)
{
    size_t read = 0, written = 0;
    while (read < length) {
        uint8_t code = in[read++];
        if (code == 0 || read + code - 1 > length)
            return -1;
        for (uint8_t i = 1; i < code; i++) {
            if (written >= room)
                return -1;
            out[written++] = in[read++];
        }
        if (code < 0xFF && read < length) {
            if (written >= room)
                return -1;
            out[written++] = 0;
        }
    }
    return (int)written;
}

size_t sabot_encode_frame(uint8_t type, uint8_t seq, uint8_t ack, const uint8_t *payload,
                          size_t length, uint8_t *out)
{
    uint8_t body[SABOT_MAX_BODY];
    if (length > SABOT_MAX_PAYLOAD)
        return 0;
    body[0] = FRAME_VERSION;
    body[1] = type;
    body[2] = seq;
    body[3] = ack;
    for (size_t i = 0; i < length; i++)
        body[HEADER + i] = payload[i];
    uint16_t crc = sabot_crc16(body, HEADER + length);
    body[HEADER + length] = (uint8_t)(crc >> 8);
    body[HEADER + length + 1] = (uint8_t)crc;
    size_t written = cobs_encode(body, HEADER + length + CRC_SIZE, out);
    out[written++] = 0;
    return written;
}

frame_status frame_decode(const uint8_t *piece, size_t length, frame *decoded)
{
    uint8_t body[SABOT_MAX_BODY];
    int size = cobs_decode(piece, length, body, sizeof body);
    if (size < HEADER + CRC_SIZE)
        return FRAME_BAD;
    uint16_t expected = (uint16_t)(body[size - 2] << 8 | body[size - 1]);
    if (sabot_crc16(body, (size_t)size - CRC_SIZE) != expected)
        return FRAME_CRC;
    if (body[0] != FRAME_VERSION)
        return FRAME_BAD;
    decoded->type = body[1];
    decoded->seq = body[2];
    decoded->ack = body[3];
    decoded->length = (uint8_t)(size - HEADER - CRC_SIZE);
    for (uint8_t i = 0; i < decoded->length; i++)
        decoded->payload[i] = body[HEADER + i];
    return FRAME_OK;
}
