/*
 * The shoe's side of the link: the session (docs/protocol.md sections 3-4) and the event
 * history (section 8), as firmware_bridge/session.py and emulator.py do it for the MCU.
 *
 * Events go into `unsent` when they happen and are handed to the session while its window
 * has room; handed items move to `sent`, where they stay (acknowledged or not) so that a
 * host that restarts can be sent what it had not journaled. The history holds
 * `history_limit` items besides those in flight: acknowledged ones go first, then the
 * oldest unsent are folded into one OVERFLOW notice at the head of `unsent`.
 */
#include <string.h>

#include "framing.h"

#define ROLE_MCU 1
#define READY 1
#define HELLO_FIXED 15
#define UNKNOWN 0xFFFF
#define SEQ_HALF 128

const sabot_timing SABOT_DEFAULT_TIMING = {100, 250, 1000, 250, 16};

/* ---- time: milliseconds that wrap ------------------------------------------------------ */

static bool due(uint32_t now, uint32_t at) { return (int32_t)(now - at) >= 0; }

/* ---- rings of history items -------------------------------------------------------------- */

static sabot_item *ring_at(sabot_ring *ring, uint16_t index)
{
    return &ring->items[(ring->head + index) % SABOT_RING];
}

static bool ring_push_back(sabot_ring *ring, const sabot_item *item)
{
    if (ring->count >= SABOT_RING)
        return false;
    ring->items[(ring->head + ring->count) % SABOT_RING] = *item;
    ring->count++;
    return true;
}

static bool ring_push_front(sabot_ring *ring, const sabot_item *item)
{
    if (ring->count >= SABOT_RING)
        return false;
    ring->head = (uint16_t)((ring->head + SABOT_RING - 1) % SABOT_RING);
    ring->items[ring->head] = *item;
    ring->count++;
    return true;
}

static sabot_item ring_pop_front(sabot_ring *ring)
{
    sabot_item item = ring->items[ring->head];
    ring->head = (uint16_t)((ring->head + 1) % SABOT_RING);
    ring->count--;
    return item;
}

static sabot_item ring_pop_back(sabot_ring *ring)
{
    ring->count--;
    return ring->items[(ring->head + ring->count) % SABOT_RING];
}

/* ---- bytes ------------------------------------------------------------------------------- */

static void put32(uint8_t *out, uint32_t value)
{
    out[0] = (uint8_t)(value >> 24);
    out[1] = (uint8_t)(value >> 16);
    out[2] = (uint8_t)(value >> 8);
    out[3] = (uint8_t)value;
}

static uint32_t get32(const uint8_t *in)
{
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
}

static void put16(uint8_t *out, uint16_t value)
{
    out[0] = (uint8_t)(value >> 8);
    out[1] = (uint8_t)value;
}

/* ---- sending frames ---------------------------------------------------------------------- */

static void emit(sabot_shoe *shoe, uint8_t type, uint8_t seq, const uint8_t *payload,
                 size_t length)
{
    uint8_t wire[SABOT_MAX_ENCODED];
    size_t size = sabot_encode_frame(type, seq, shoe->last_received, payload, length, wire);
    if (size == 0)
        return;
    shoe->port.write(shoe->port.context, wire, size);
    shoe->stats.frames_sent++;
    shoe->last_tx = shoe->now;
    shoe->sent_any = true;
    shoe->ack_pending = false; /* every frame carries the cumulative ack */
}

static uint8_t link_version(const sabot_shoe *shoe)
{
    if (!shoe->has_peer)
        return 1;
    uint8_t theirs = shoe->peer_protocol ? shoe->peer_protocol : 1;
    return theirs < shoe->protocol ? theirs : shoe->protocol;
}

static void send_hello(sabot_shoe *shoe)
{
    uint8_t payload[HELLO_FIXED + SABOT_MAX_VERSION_TEXT];
    size_t length = HELLO_FIXED;
    shoe->next_hello = shoe->now + shoe->timing.hello_ms;
    payload[0] = shoe->protocol;
    payload[1] = ROLE_MCU;
    payload[2] = shoe->handshake_done ? READY : 0;
    put32(payload + 3, shoe->boot_id);
    put32(payload + 7, shoe->has_peer ? shoe->peer_boot : 0);
    put32(payload + 11, shoe->hello_counter);
    for (const char *c = shoe->firmware; *c && length < sizeof payload; c++)
        payload[length++] = (uint8_t)*c;
    emit(shoe, SABOT_HELLO, 0, payload, length);
}

static sabot_pending *unacked_at(sabot_shoe *shoe, uint8_t index)
{
    return &shoe->unacked[(shoe->unacked_head + index) % SABOT_WINDOW];
}

static void session_send(sabot_shoe *shoe, uint8_t type, const uint8_t *payload,
                         size_t length, uint32_t tag)
{
    sabot_pending *pending = unacked_at(shoe, shoe->unacked_count);
    pending->seq = shoe->next_seq;
    pending->type = type;
    pending->length = (uint8_t)length;
    pending->tagged = true;
    pending->tag = tag;
    for (size_t i = 0; i < length; i++)
        pending->payload[i] = payload[i];
    shoe->next_seq = (uint8_t)(shoe->next_seq + 1);
    shoe->unacked_count++;
    if (!shoe->retransmit_armed) {
        shoe->retransmit_armed = true;
        shoe->retransmit_at = shoe->now + shoe->timing.retransmit_ms;
    }
    emit(shoe, type, pending->seq, pending->payload, pending->length);
}

static void retransmit(sabot_shoe *shoe)
{
    for (uint8_t i = 0; i < shoe->unacked_count; i++) {
        sabot_pending *pending = unacked_at(shoe, i);
        shoe->stats.retransmits++;
        emit(shoe, pending->type, pending->seq, pending->payload, pending->length);
    }
    shoe->recovering = true;
    shoe->recover_until = unacked_at(shoe, (uint8_t)(shoe->unacked_count - 1))->seq;
    shoe->retransmit_armed = true;
    shoe->retransmit_at = shoe->now + shoe->timing.retransmit_ms;
}

/* ---- the history ------------------------------------------------------------------------- */

static uint16_t add_count(uint16_t a, uint16_t b)
{
    if (a == UNKNOWN || b == UNKNOWN)
        return UNKNOWN;
    uint32_t sum = (uint32_t)a + b;
    return sum >= UNKNOWN ? UNKNOWN - 1 : (uint16_t)sum;
}

static int kind_of(uint8_t type)
{
    switch (type) {
    case SABOT_CARD_PRESENT:
    case SABOT_CARD_GONE: return 0;
    case SABOT_BUTTON: return 1;
    case SABOT_LID: return 2;
    default: return 3;
    }
}

/* The OVERFLOW notice that says `event` will never be sent. */
static sabot_item lost_notice(const sabot_item *event)
{
    sabot_item notice = {0};
    notice.type = SABOT_OVERFLOW;
    notice.first = event->first;
    notice.last = event->last;
    notice.cards = event->cards;
    notice.lost[kind_of(event->type)] = 1;
    return notice;
}

static sabot_item widened(const sabot_item *a, const sabot_item *b)
{
    sabot_item both = *a;
    both.first = a->first < b->first ? a->first : b->first;
    both.last = a->last > b->last ? a->last : b->last;
    both.cards = a->cards > b->cards ? a->cards : b->cards;
    for (int i = 0; i < 4; i++)
        both.lost[i] = add_count(a->lost[i], b->lost[i]);
    return both;
}

static bool fold_oldest_unsent(sabot_shoe *shoe)
{
    sabot_ring *unsent = &shoe->unsent;
    if (unsent->count == 0)
        return false;
    sabot_item *head = ring_at(unsent, 0);
    if (head->type == SABOT_OVERFLOW) {
        if (unsent->count < 2)
            return false;
        sabot_item first = ring_pop_front(unsent);
        sabot_item later = ring_pop_front(unsent);
        sabot_item notice = later.type == SABOT_OVERFLOW ? later : lost_notice(&later);
        sabot_item both = widened(&first, &notice);
        ring_push_front(unsent, &both);
    } else {
        *head = lost_notice(head);
    }
    shoe->stats.lost_events++;
    return true;
}

static void make_room(sabot_shoe *shoe)
{
    uint16_t in_flight = 0;
    for (uint16_t i = 0; i < shoe->sent.count; i++)
        if (ring_at(&shoe->sent, i)->last > shoe->acked)
            in_flight++;
    while (shoe->sent.count + shoe->unsent.count - in_flight > shoe->history_limit) {
        if (shoe->sent.count && ring_at(&shoe->sent, 0)->last <= shoe->acked)
            ring_pop_front(&shoe->sent);
        else if (!fold_oldest_unsent(shoe))
            return;
    }
}

/* Hand items to the session as its window frees (version 1 has no OVERFLOW). */
static void pump(sabot_shoe *shoe)
{
    if (!shoe->handshake_done)
        return;
    uint8_t version = link_version(shoe);
    while (shoe->unsent.count && shoe->unacked_count < shoe->timing.window) {
        sabot_item item = ring_pop_front(&shoe->unsent);
        uint8_t payload[SABOT_MAX_PAYLOAD];
        if (item.type == SABOT_OVERFLOW) {
            if (version < 2)
                continue; /* lost silently: the card counter shows it */
            put32(payload, item.first);
            put32(payload + 4, item.last);
            for (int i = 0; i < 4; i++)
                put16(payload + 8 + 2 * i, item.lost[i]);
            session_send(shoe, SABOT_OVERFLOW, payload, 16, item.last);
        } else {
            size_t at = 0;
            if (version >= 2) {
                put32(payload, item.first);
                at = 4;
            }
            for (uint8_t i = 0; i < item.length; i++)
                payload[at + i] = item.payload[i];
            session_send(shoe, item.type, payload, at + item.length, item.first);
        }
        if (!ring_push_back(&shoe->sent, &item)) {
            ring_pop_front(&shoe->sent); /* never with the bounds kept; the oldest goes */
            ring_push_back(&shoe->sent, &item);
        }
    }
}

static void record(sabot_shoe *shoe, uint8_t type, const uint8_t *payload, size_t length)
{
    sabot_item item = {0};
    shoe->now = shoe->port.millis(shoe->port.context);
    shoe->event_counter++;
    item.type = type;
    item.first = item.last = shoe->event_counter;
    item.cards = shoe->card_counter;
    item.length = (uint8_t)(length > SABOT_EVENT_ROOM ? SABOT_EVENT_ROOM : length);
    for (uint8_t i = 0; i < item.length; i++)
        item.payload[i] = payload[i];
    if (shoe->unsent.count >= SABOT_RING)
        fold_oldest_unsent(shoe);
    ring_push_back(&shoe->unsent, &item);
    make_room(shoe);
    pump(shoe);
}

/* A host we have not talked to completed the handshake: it gets the history after its
 * resume point (a restarted host, version 2), or what no host acknowledged. */
static void replay_for_new_host(sabot_shoe *shoe)
{
    shoe->host_known = true;
    shoe->host = shoe->peer_boot;
    uint32_t resume = link_version(shoe) >= 2 ? shoe->peer_resume : 0;
    uint32_t start = resume ? resume : shoe->acked;
    if (start > shoe->event_counter)
        start = shoe->event_counter;
    if (start > shoe->acked)
        shoe->acked = start; /* journaled by a host: as good as acknowledged */
    while (shoe->sent.count && ring_at(&shoe->sent, (uint16_t)(shoe->sent.count - 1))->last > start) {
        sabot_item again = ring_pop_back(&shoe->sent);
        ring_push_front(&shoe->unsent, &again);
    }
    uint32_t oldest = shoe->unsent.count ? ring_at(&shoe->unsent, 0)->first
                                         : shoe->event_counter + 1;
    if (start + 1 < oldest) { /* the history no longer holds what the host needs */
        sabot_item unknown = {0};
        unknown.type = SABOT_OVERFLOW;
        unknown.first = start + 1;
        unknown.last = oldest - 1;
        unknown.cards = shoe->hello_counter;
        for (int i = 0; i < 4; i++)
            unknown.lost[i] = UNKNOWN;
        ring_push_front(&shoe->unsent, &unknown);
    }
    pump(shoe);
}

/* ---- receiving ------------------------------------------------------------------------- */

static void came_up(sabot_shoe *shoe)
{
    shoe->up = true;
    if (!shoe->host_known || shoe->host != shoe->peer_boot)
        replay_for_new_host(shoe);
}

static void new_peer(sabot_shoe *shoe, uint32_t boot)
{
    shoe->has_peer = true;
    shoe->peer_boot = boot;
    shoe->handshake_done = false;
    shoe->up = false;
    shoe->host_known = false; /* the old host's queue is gone; `sent` keeps the history */
    shoe->unacked_count = 0;
    shoe->next_seq = 1;
    shoe->last_received = 0;
    shoe->retransmit_armed = false;
    shoe->recovering = false;
    shoe->ack_pending = false;
}

static void on_hello(sabot_shoe *shoe, const frame *hello)
{
    if (hello->length < HELLO_FIXED || hello->payload[1] > ROLE_MCU) {
        shoe->stats.ignored++;
        return;
    }
    if (hello->payload[1] == ROLE_MCU) {
        shoe->stats.ignored++; /* our own frames echoed back (a tty with echo on) */
        return;
    }
    uint32_t boot = get32(hello->payload + 3);
    if (!shoe->has_peer || boot != shoe->peer_boot)
        new_peer(shoe, boot);
    shoe->peer_protocol = hello->payload[0];
    shoe->peer_resume = get32(hello->payload + 11);
    if (get32(hello->payload + 7) == shoe->boot_id)
        shoe->handshake_done = true;
    if (shoe->handshake_done) {
        shoe->last_rx = shoe->now;
        if (!shoe->up)
            came_up(shoe);
    }
    if (!(hello->payload[2] & READY))
        send_hello(shoe); /* the host waits for a HELLO that names it */
}

static void acknowledged(sabot_shoe *shoe, uint32_t tag)
{
    if (tag <= shoe->acked)
        return;
    shoe->acked = tag;
    if (shoe->protocol >= 2) {
        /* Version 2's HELLO: the card counter as of the newest acknowledged event. */
        for (uint16_t i = shoe->sent.count; i-- > 0;) {
            sabot_item *item = ring_at(&shoe->sent, i);
            if (item->last == tag) {
                shoe->hello_counter = item->cards;
                break;
            }
        }
    }
    make_room(shoe);
}

static void on_ack(sabot_shoe *shoe, uint8_t ack, bool is_ack_frame)
{
    if (shoe->unacked_count == 0)
        return;
    uint8_t acked = (uint8_t)(ack - unacked_at(shoe, 0)->seq + 1);
    if (acked >= 1 && acked <= shoe->unacked_count) {
        uint32_t tag = 0;
        bool tagged = false;
        for (uint8_t i = 0; i < acked; i++) {
            sabot_pending *pending = unacked_at(shoe, 0);
            if (pending->tagged) {
                tag = pending->tag;
                tagged = true;
            }
            shoe->unacked_head = (uint8_t)((shoe->unacked_head + 1) % SABOT_WINDOW);
            shoe->unacked_count--;
        }
        shoe->retransmit_armed = shoe->unacked_count > 0;
        shoe->retransmit_at = shoe->now + shoe->timing.retransmit_ms;
        if (shoe->recovering) {
            bool still = false;
            for (uint8_t i = 0; i < shoe->unacked_count; i++)
                still |= unacked_at(shoe, i)->seq == shoe->recover_until;
            shoe->recovering = still;
        }
        if (tagged)
            acknowledged(shoe, tag);
    } else if (acked == 0 && is_ack_frame && !shoe->recovering) {
        /* The host re-acked what it had: it saw a gap. Resend now, once per loss. */
        retransmit(shoe);
    }
}

static void deliver(sabot_shoe *shoe, const frame *message)
{
    shoe->stats.delivered++;
    if (message->type == SABOT_LAMPS && message->length == 2) {
        shoe->lamps = (uint16_t)((message->payload[0] << 8 | message->payload[1])
                                 & SABOT_LAMPS_USED);
        shoe->lamps_received = true;
    } else if (message->type == SABOT_ERROR && message->length >= 1) {
        shoe->stats.host_errors++;
    } else {
        shoe->stats.malformed++; /* the MCU takes only LAMPS and ERROR from a host */
    }
}

/* A LAMPS that is not 2 bytes, an empty ERROR or a type a host does not send passed the CRC
   by chance (one damaged frame in 65,536 does): none of its fields is trusted, it is dropped
   unacknowledged and the host sends it again. Refused CORRUPT_TRIES times running, it is the
   host's own message and is taken as before (docs/protocol.md section 4). */
#define CORRUPT_TRIES 3

static bool refuse(sabot_shoe *shoe, const frame *message)
{
    bool usable = (message->type == SABOT_LAMPS && message->length == 2)
                  || (message->type == SABOT_ERROR && message->length >= 1);
    bool again = shoe->refused_times > 0 && shoe->refused_seq == message->seq;
    if (usable) {
        if (again)
            shoe->refused_times = 0;
        return false;
    }
    if (again && shoe->refused_times >= CORRUPT_TRIES)
        return false;
    shoe->refused_seq = message->seq;
    shoe->refused_times = again ? (uint8_t)(shoe->refused_times + 1) : 1;
    shoe->stats.corrupt++;
    return true;
}

static void on_frame(sabot_shoe *shoe, const frame *message)
{
    if (message->type == SABOT_HELLO) {
        on_hello(shoe, message);
        return;
    }
    if (!shoe->handshake_done) {
        shoe->stats.ignored++; /* the host's numbering is not known to be ours yet */
        return;
    }
    if (message->type != SABOT_HEARTBEAT && message->type != SABOT_ACK && refuse(shoe, message))
        return;
    shoe->last_rx = shoe->now;
    if (!shoe->up)
        came_up(shoe);
    on_ack(shoe, message->ack, message->type == SABOT_ACK);
    if (message->type == SABOT_HEARTBEAT || message->type == SABOT_ACK)
        return;
    shoe->ack_pending = true;
    if (message->seq == (uint8_t)(shoe->last_received + 1)) {
        shoe->last_received = message->seq;
        deliver(shoe, message);
    } else if ((uint8_t)(shoe->last_received - message->seq) < SEQ_HALF) {
        shoe->stats.duplicates++;
    } else {
        shoe->stats.out_of_order++; /* an earlier frame was lost: go-back-N resends both */
    }
}

static void on_piece(sabot_shoe *shoe, const uint8_t *piece, size_t length)
{
    frame message;
    switch (frame_decode(piece, length, &message)) {
    case FRAME_OK: on_frame(shoe, &message); break;
    case FRAME_CRC: shoe->stats.crc_errors++; break;
    default: shoe->stats.bad_frames++; break;
    }
}

/* ---- the lamps --------------------------------------------------------------------------- */

static void show_lamps(sabot_shoe *shoe)
{
    /* Only `fault` until a LAMPS came since boot, and while the link is down. */
    uint16_t shown = shoe->up && shoe->lamps_received ? shoe->lamps : SABOT_LAMP_FAULT;
    if (!shoe->shown_valid || shown != shoe->shown) {
        shoe->shown = shown;
        shoe->shown_valid = true;
        if (shoe->port.lamps)
            shoe->port.lamps(shoe->port.context, shown);
    }
}

/* ---- the API ----------------------------------------------------------------------------- */

void sabot_init(sabot_shoe *shoe, const sabot_port *port, const sabot_timing *timing,
                uint32_t boot_id, const char *firmware, uint8_t protocol, uint16_t history)
{
    memset(shoe, 0, sizeof *shoe);
    shoe->port = *port;
    shoe->timing = timing ? *timing : SABOT_DEFAULT_TIMING;
    if (shoe->timing.window < 1 || shoe->timing.window > SABOT_WINDOW)
        shoe->timing.window = SABOT_WINDOW;
    shoe->firmware = firmware ? firmware : "sabot-c 2.0";
    shoe->protocol = protocol == 1 ? 1 : SABOT_PROTOCOL;
    shoe->history_limit = history && history <= SABOT_HISTORY ? history : SABOT_HISTORY;
    shoe->boot_id = boot_id ? boot_id : 1;
    shoe->next_seq = 1;
    shoe->now = port->millis(port->context);
    shoe->next_hello = shoe->now; /* a HELLO at the first tick */
    show_lamps(shoe);
}

void sabot_feed(sabot_shoe *shoe, const uint8_t *data, size_t length)
{
    shoe->now = shoe->port.millis(shoe->port.context);
    for (size_t i = 0; i < length; i++) {
        if (data[i] == 0) {
            if (shoe->rx_length && !shoe->rx_overlong)
                on_piece(shoe, shoe->rx, shoe->rx_length);
            shoe->rx_length = 0;
            shoe->rx_overlong = false;
        } else if (shoe->rx_length < SABOT_MAX_ENCODED) {
            shoe->rx[shoe->rx_length++] = data[i];
        } else if (!shoe->rx_overlong) {
            shoe->rx_overlong = true; /* garbage or a lost delimiter: skip to the next one */
            shoe->stats.overlong++;
        }
    }
    pump(shoe);
    if (shoe->ack_pending)
        emit(shoe, SABOT_ACK, 0, 0, 0);
    show_lamps(shoe);
}

void sabot_tick(sabot_shoe *shoe)
{
    shoe->now = shoe->port.millis(shoe->port.context);
    if (shoe->up && shoe->now - shoe->last_rx > shoe->timing.link_down_ms)
        shoe->up = false;
    if (!shoe->up && due(shoe->now, shoe->next_hello))
        send_hello(shoe);
    if (shoe->handshake_done) {
        if (shoe->unacked_count && due(shoe->now, shoe->retransmit_at))
            retransmit(shoe);
        pump(shoe);
        if (!shoe->sent_any || shoe->now - shoe->last_tx >= shoe->timing.heartbeat_ms)
            emit(shoe, SABOT_HEARTBEAT, 0, 0, 0);
    }
    show_lamps(shoe);
}

uint32_t sabot_card_present(sabot_shoe *shoe)
{
    uint8_t payload[4];
    shoe->card_counter++;
    if (shoe->protocol < 2)
        shoe->hello_counter = shoe->card_counter; /* version 1: the last card detected */
    put32(payload, shoe->card_counter);
    record(shoe, SABOT_CARD_PRESENT, payload, 4);
    return shoe->card_counter;
}

void sabot_card_gone(sabot_shoe *shoe)
{
    uint8_t payload[4];
    put32(payload, shoe->card_counter);
    record(shoe, SABOT_CARD_GONE, payload, 4);
}

void sabot_button(sabot_shoe *shoe, uint8_t id)
{
    record(shoe, SABOT_BUTTON, &id, 1);
}

void sabot_lid(sabot_shoe *shoe, bool open)
{
    uint8_t value = open ? 1 : 0;
    record(shoe, SABOT_LID, &value, 1);
}

void sabot_error(sabot_shoe *shoe, uint8_t code, const char *text)
{
    uint8_t payload[SABOT_EVENT_ROOM];
    size_t length = 1;
    payload[0] = code;
    for (const char *c = text; c && *c && length < sizeof payload; c++)
        payload[length++] = (uint8_t)*c;
    record(shoe, SABOT_ERROR, payload, length);
}

uint16_t sabot_queued(const sabot_shoe *shoe)
{
    uint16_t unacknowledged = 0;
    for (uint16_t i = 0; i < shoe->sent.count; i++)
        if (shoe->sent.items[(shoe->sent.head + i) % SABOT_RING].last > shoe->acked)
            unacknowledged++;
    return (uint16_t)(unacknowledged + shoe->unsent.count);
}
