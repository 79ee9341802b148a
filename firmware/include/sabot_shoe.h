/*
 * The shoe microcontroller's side of the Sabot link (docs/protocol.md, versions 1 and 2),
 * in portable C99: framing (COBS, CRC-16/CCITT-FALSE), sequencing with acknowledgements and
 * go-back-N retransmission, the HELLO handshake, heartbeats, the event numbers and history
 * of version 2, OVERFLOW, and the lamp outputs. No heap, no stdio, no clock of its own: the
 * port (`sabot_port`) gives it a millisecond clock, a UART writer and the lamp outputs, and
 * the application calls it with what the UART received and with what the shoe sensed.
 *
 * A port calls, from one context only (a main loop; not from interrupts):
 *   sabot_init()                          once at boot (and at every reset)
 *   sabot_feed(bytes received)            whenever the UART has bytes
 *   sabot_tick()                          every millisecond or so (at least every 5 ms)
 *   sabot_card_present() / _card_gone()   the card sensor's edges
 *   sabot_button(), sabot_lid(), sabot_error()
 * docs/firmware.md says how to port it.
 */
#ifndef SABOT_SHOE_H
#define SABOT_SHOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SABOT_PROTOCOL 2      /* the highest version this firmware speaks */
#define SABOT_MAX_PAYLOAD 64
#define SABOT_EVENT_ROOM (SABOT_MAX_PAYLOAD - 4) /* a payload after its event number */
#define SABOT_MAX_VERSION_TEXT 32

#ifndef SABOT_HISTORY
#define SABOT_HISTORY 128 /* events kept for a restarting host; RAM: see docs/firmware.md */
#endif
#define SABOT_WINDOW 16   /* frames in flight at most (timing.window may be lower) */
#define SABOT_RING (SABOT_HISTORY + SABOT_WINDOW + 2)

/* Message types (docs/protocol.md section 2). */
enum {
    SABOT_HELLO = 0x01, SABOT_HEARTBEAT = 0x02, SABOT_ACK = 0x03,
    SABOT_CARD_PRESENT = 0x10, SABOT_CARD_GONE = 0x11, SABOT_BUTTON = 0x12,
    SABOT_LID = 0x13, SABOT_ERROR = 0x14, SABOT_OVERFLOW = 0x15, SABOT_LAMPS = 0x20
};

/* BUTTON ids. */
enum { SABOT_NO_MORE_BETS = 1, SABOT_CARD_DISCLOSED = 2, SABOT_ACKNOWLEDGE = 3,
       SABOT_NEW_SHOE = 4, SABOT_COUNT_OUT = 5 };

/* LAMPS bits: 0 player_draw, 1 player_stand, 2 banker_draw, 3 banker_stand, 4 player_win,
 * 5 banker_win, 6 tie, 7 last_coup, 8 no_bets, 9 shuffle, 10 fault. */
#define SABOT_LAMP_FAULT (1u << 10)
#define SABOT_LAMPS_USED 0x07FFu

typedef struct {
    void *context;
    uint32_t (*millis)(void *context); /* free-running milliseconds; may wrap */
    void (*write)(void *context, const uint8_t *data, size_t length); /* to the UART */
    void (*lamps)(void *context, uint16_t mask); /* drive the lamps; called on change */
} sabot_port;

typedef struct {
    uint16_t retransmit_ms, heartbeat_ms, link_down_ms, hello_ms;
    uint8_t window; /* 1..SABOT_WINDOW */
} sabot_timing;

extern const sabot_timing SABOT_DEFAULT_TIMING; /* 100, 250, 1000, 250 ms, window 16 */

/* One item of the history: an event, or (type SABOT_OVERFLOW) events that will never be
 * sent, first..last, with how many were cards, buttons, lids, errors (0xFFFF unknown). */
typedef struct {
    uint32_t first, last;
    uint32_t cards;     /* the card counter after it */
    uint16_t lost[4];
    uint8_t type, length;
    uint8_t payload[SABOT_EVENT_ROOM]; /* the version 1 payload */
} sabot_item;

typedef struct {
    sabot_item items[SABOT_RING];
    uint16_t head, count;
} sabot_ring;

typedef struct {
    uint8_t seq, type, length;
    bool tagged;
    uint32_t tag; /* the event number it carries (the last one, for an OVERFLOW) */
    uint8_t payload[SABOT_MAX_PAYLOAD];
} sabot_pending;

typedef struct {
    uint32_t frames_sent, retransmits, delivered, duplicates, out_of_order, ignored;
    uint32_t crc_errors, bad_frames, overlong, malformed, lost_events, host_errors;
    uint32_t corrupt; /* frames past the CRC with no message's payload: dropped, sent again */
} sabot_stats;

typedef struct {
    sabot_port port;
    sabot_timing timing;
    const char *firmware;
    uint8_t protocol;
    uint16_t history_limit;
    sabot_stats stats;

    /* the session (docs/protocol.md sections 3 and 4) */
    uint32_t boot_id;
    bool has_peer, handshake_done, up;
    uint32_t peer_boot, peer_resume;
    uint8_t peer_protocol;
    uint8_t next_seq, last_received;
    uint8_t refused_seq, refused_times; /* the frame refused as damaged past the CRC */
    sabot_pending unacked[SABOT_WINDOW];
    uint8_t unacked_head, unacked_count;
    bool retransmit_armed, recovering, ack_pending, sent_any;
    uint8_t recover_until;
    uint32_t retransmit_at, last_rx, last_tx, next_hello;
    uint32_t hello_counter; /* HELLO's card_counter */
    uint32_t now;

    /* the frame being received */
    uint8_t rx[SABOT_MAX_PAYLOAD + 8];
    uint8_t rx_length;
    bool rx_overlong;

    /* the shoe (section 8) */
    uint32_t card_counter, event_counter, acked;
    bool host_known;
    uint32_t host;
    sabot_ring sent, unsent; /* handed to the session; not yet handed */
    uint16_t lamps, shown;
    bool lamps_received, shown_valid;
} sabot_shoe;

/* `boot_id`: random and non-zero, new at every boot. `history`: events kept, at most
 * SABOT_HISTORY (0: SABOT_HISTORY). `protocol`: 1 or 2. */
void sabot_init(sabot_shoe *shoe, const sabot_port *port, const sabot_timing *timing,
                uint32_t boot_id, const char *firmware, uint8_t protocol, uint16_t history);
void sabot_feed(sabot_shoe *shoe, const uint8_t *data, size_t length);
void sabot_tick(sabot_shoe *shoe);

uint32_t sabot_card_present(sabot_shoe *shoe); /* returns the card's counter */
void sabot_card_gone(sabot_shoe *shoe);
void sabot_button(sabot_shoe *shoe, uint8_t id);
void sabot_lid(sabot_shoe *shoe, bool open);
void sabot_error(sabot_shoe *shoe, uint8_t code, const char *text);

/* Events and notices not yet acknowledged by the host. */
uint16_t sabot_queued(const sabot_shoe *shoe);

/* The framing alone, for tests and tools: the wire bytes of one frame (delimiter
 * included) into `out` (at least 72 bytes); returns their number, 0 if payload too long. */
size_t sabot_encode_frame(uint8_t type, uint8_t seq, uint8_t ack, const uint8_t *payload,
                          size_t length, uint8_t *out);
uint16_t sabot_crc16(const uint8_t *data, size_t length);

#endif
