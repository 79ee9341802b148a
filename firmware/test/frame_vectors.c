/*
 * The framing of the reference firmware against docs/protocol.md's test vectors: reads
 * lines "TYPE SEQ ACK PAYLOAD-HEX" (hex type, decimal seq and ack, "-" for no payload) and
 * prints the wire bytes of each frame in hex, as the vectors write them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sabot_shoe.h"

int main(void)
{
    char line[1024];
    while (fgets(line, sizeof line, stdin)) {
        unsigned type, seq, ack;
        int used = 0;
        if (sscanf(line, "%x %u %u %n", &type, &seq, &ack, &used) < 3)
            continue;
        uint8_t payload[SABOT_MAX_PAYLOAD], wire[80];
        size_t length = 0;
        for (char *hex = strtok(line + used, " \n"); hex && strcmp(hex, "-");
             hex = strtok(NULL, " \n")) {
            if (length == sizeof payload)
                return 1;
            payload[length++] = (uint8_t)strtoul(hex, NULL, 16);
        }
        size_t size = sabot_encode_frame((uint8_t)type, (uint8_t)seq, (uint8_t)ack, payload,
                                         length, wire);
        for (size_t i = 0; i < size; i++)
            printf(i ? " %02x" : "%02x", wire[i]);
        printf("\n");
    }
    return 0;
}
