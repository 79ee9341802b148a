/*
 * The reference firmware on a POSIX machine: the shoe's link on a pseudo-terminal (or on
 * stdin/stdout), and the shoe's sensor and buttons as commands, one per line. What a shoe
 * maker runs before porting (docs/firmware.md), and what the tests run the host against.
 *
 *   sabot-shoe --pty                  prints "pty /dev/pts/N"; commands on stdin
 *   sabot-shoe --stdio [--commands 3] the UART is stdin/stdout; commands on fd 3
 *
 * Commands: card | present | gone | press no_more_bets|card_disclosed|acknowledge|new_shoe
 *           | lid open|closed | error CODE TEXT | reset | status | quit
 * Reports (stdout with --pty, stderr with --stdio): "boot XXXXXXXX", "lamps XXXX",
 * "card N", "status ...".
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sabot_shoe.h"

typedef struct {
    int uart_in, uart_out, commands;
    FILE *reports;
    bool drop_when_full; /* a pty nobody reads loses bytes, like a real UART */
    uint32_t random_state;
} posix_port;

static uint32_t posix_millis(void *context)
{
    (void)context;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint32_t)((uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u);
}

static void posix_write(void *context, const uint8_t *data, size_t length)
{
    posix_port *port = context;
    while (length > 0) {
        ssize_t written = write(port->uart_out, data, length);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return; /* EAGAIN on a full pty, EIO with nobody there: the bytes are lost */
        }
        data += written;
        length -= (size_t)written;
    }
}

static void report(posix_port *port, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vfprintf(port->reports, format, args);
    va_end(args);
    fputc('\n', port->reports);
    fflush(port->reports);
}

static void posix_lamps(void *context, uint16_t mask)
{
    report(context, "lamps %04x", mask);
}

static uint32_t next_random(posix_port *port)
{
    uint32_t x = port->random_state; /* xorshift32: a boot id, not a secret */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    port->random_state = x;
    return x ? x : 1;
}

static uint32_t entropy(void)
{
    uint32_t value = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        if (read(fd, &value, sizeof value) != sizeof value)
            value = 0;
        close(fd);
    }
    return value ? value : (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
}

typedef struct {
    sabot_port port;
    sabot_timing timing;
    const char *firmware;
    uint8_t protocol;
    uint16_t history;
} settings;

static void boot(sabot_shoe *shoe, settings *chosen, posix_port *port)
{
    sabot_init(shoe, &chosen->port, &chosen->timing, next_random(port), chosen->firmware,
               chosen->protocol, chosen->history);
    report(port, "boot %08x", shoe->boot_id);
}

static const char *const BUTTON_NAMES[] = {"no_more_bets", "card_disclosed", "acknowledge",
                                           "new_shoe", "count_out"};
#define BUTTON_COUNT (sizeof BUTTON_NAMES / sizeof BUTTON_NAMES[0])

/* One command line; false to quit. */
static bool command(char *line, sabot_shoe *shoe, settings *chosen, posix_port *port)
{
    char *word = strtok(line, " \t\r\n");
    char *argument = strtok(NULL, " \t\r\n");
    if (!word)
        return true;
    if (!strcmp(word, "card")) {
        report(port, "card %u", sabot_card_present(shoe));
        sabot_card_gone(shoe);
    } else if (!strcmp(word, "present")) {
        report(port, "card %u", sabot_card_present(shoe));
    } else if (!strcmp(word, "gone")) {
        sabot_card_gone(shoe);
    } else if (!strcmp(word, "press") && argument) {
        for (uint8_t id = 1; id <= BUTTON_COUNT; id++)
            if (!strcmp(argument, BUTTON_NAMES[id - 1]) || atoi(argument) == id) {
                sabot_button(shoe, id);
                return true;
            }
        report(port, "error unknown button %s", argument);
    } else if (!strcmp(word, "lid") && argument) {
        sabot_lid(shoe, !strcmp(argument, "open"));
    } else if (!strcmp(word, "error") && argument) {
        char *text = strtok(NULL, "\r\n");
        sabot_error(shoe, (uint8_t)atoi(argument), text ? text : "");
    } else if (!strcmp(word, "reset")) {
        boot(shoe, chosen, port);
    } else if (!strcmp(word, "status")) {
        report(port, "status boot=%08x up=%d cards=%u events=%u queued=%u lamps=%04x "
               "lost=%u malformed=%u crc_errors=%u bad_frames=%u",
               shoe->boot_id, shoe->up, shoe->card_counter, shoe->event_counter,
               sabot_queued(shoe), shoe->shown, shoe->stats.lost_events,
               shoe->stats.malformed, shoe->stats.crc_errors, shoe->stats.bad_frames);
    } else if (!strcmp(word, "quit")) {
        return false;
    } else {
        report(port, "error unknown command %s", word);
    }
    return true;
}

static int open_pty(posix_port *port)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master))
        return -1;
    const char *name = ptsname(master);
    int slave = name ? open(name, O_RDWR | O_NOCTTY) : -1;
    if (slave < 0)
        return -1;
    /* Raw at once (a cooked line would echo our frames back), and kept open so that reads
     * on the master never fail while the host has it closed. */
    struct termios raw;
    tcgetattr(slave, &raw);
    raw.c_iflag &= (tcflag_t) ~(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
    raw.c_oflag &= (tcflag_t) ~OPOST;
    raw.c_lflag &= (tcflag_t) ~(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    raw.c_cflag = (raw.c_cflag & (tcflag_t) ~(CSIZE | PARENB)) | CS8;
    tcsetattr(slave, TCSANOW, &raw);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    port->uart_in = port->uart_out = master;
    port->drop_when_full = true;
    report(port, "pty %s", name);
    return slave;
}

static int usage(const char *why)
{
    fprintf(stderr, "sabot-shoe: %s\nusage: sabot-shoe --pty | --stdio [--commands FD] "
            "[--protocol 1|2] [--history N] [--timing RETRANSMIT,HEARTBEAT,DOWN,HELLO (ms)] "
            "[--seed N] [--firmware TEXT]\n", why);
    return 2;
}

int main(int argc, char **argv)
{
    posix_port port = {.uart_in = 0, .uart_out = 1, .commands = 0, .reports = stdout};
    settings chosen = {.port = {&port, posix_millis, posix_write, posix_lamps},
                       .timing = SABOT_DEFAULT_TIMING, .firmware = "sabot-c 2.0",
                       .protocol = SABOT_PROTOCOL, .history = SABOT_HISTORY};
    bool pty = false, stdio = false;
    uint32_t seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--pty")) {
            pty = true;
        } else if (!strcmp(argv[i], "--stdio")) {
            stdio = true;
        } else if (!value) {
            return usage("an option lacks its value");
        } else if (!strcmp(argv[i], "--commands")) {
            port.commands = atoi(value), i++;
        } else if (!strcmp(argv[i], "--protocol")) {
            chosen.protocol = (uint8_t)atoi(value), i++;
        } else if (!strcmp(argv[i], "--history")) {
            int history = atoi(value);
            if (history < 1 || history > SABOT_HISTORY)
                return usage("--history must be 1 to SABOT_HISTORY (128 in this build)");
            chosen.history = (uint16_t)history, i++;
        } else if (!strcmp(argv[i], "--timing")) {
            unsigned r, h, d, l;
            if (sscanf(value, "%u,%u,%u,%u", &r, &h, &d, &l) != 4)
                return usage("--timing takes four numbers of milliseconds");
            chosen.timing.retransmit_ms = (uint16_t)r, chosen.timing.heartbeat_ms = (uint16_t)h;
            chosen.timing.link_down_ms = (uint16_t)d, chosen.timing.hello_ms = (uint16_t)l;
            i++;
        } else if (!strcmp(argv[i], "--seed")) {
            seed = (uint32_t)strtoul(value, NULL, 0), i++;
        } else if (!strcmp(argv[i], "--firmware")) {
            chosen.firmware = value, i++;
        } else {
            return usage("unknown option");
        }
    }
    if (pty == stdio)
        return usage("give --pty or --stdio");
    port.random_state = seed ? seed : entropy();
    if (stdio) {
        port.reports = stderr;
        if (!port.commands)
            port.commands = 3;
    } else if (open_pty(&port) < 0) {
        perror("sabot-shoe: cannot open a pseudo-terminal");
        return 1;
    }
    static sabot_shoe shoe;
    boot(&shoe, &chosen, &port);
    char line[256];
    size_t line_length = 0;
    for (;;) {
        struct pollfd wait[2] = {{port.uart_in, POLLIN, 0}, {port.commands, POLLIN, 0}};
        if (poll(wait, 2, 1) < 0 && errno != EINTR)
            return 1;
        if (wait[0].revents & (POLLIN | POLLHUP)) {
            uint8_t data[512];
            ssize_t got = read(port.uart_in, data, sizeof data);
            if (got > 0)
                sabot_feed(&shoe, data, (size_t)got);
            else if (got == 0 && stdio)
                return 0; /* the line is gone: the harness ended */
        }
        if (wait[1].revents & (POLLIN | POLLHUP)) {
            char data[256];
            ssize_t got = read(port.commands, data, sizeof data);
            if (got <= 0)
                return 0;
            for (ssize_t i = 0; i < got; i++) {
                if (data[i] != '\n' && line_length < sizeof line - 1) {
                    line[line_length++] = data[i];
                    continue;
                }
                line[line_length] = 0;
                line_length = 0;
                if (!command(line, &shoe, &chosen, &port))
                    return 0;
            }
        }
        sabot_tick(&shoe);
    }
}
