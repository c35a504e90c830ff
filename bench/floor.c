/*
 * The benchmark's floor: the fewest D-Bus round trips a process can make to read one secret,
 * on sd-bus, to set keyid get and secret-tool lookup against (make bench, bench/bench.py).
 *
 *   bench-floor SERVICE ACCOUNT
 *
 * First a read of the service's Collections property, answered before anything else is sent:
 * gnome-keyring 42.1 sets a new client up on its main loop after the client's first message,
 * and a SearchItems it handles before that fails, an OpenSession crashes it (doc/COMPATIBILITY.md;
 * without this read, `make bench` stopped now and then with bench-floor exiting 2 once the
 * keyring held 10,000 items). Then OpenSession("plain") and SearchItems({service, account}) go
 * out together, then GetSecrets([first unlocked item], session) (secret-tool lookup also takes
 * the first). Prints
 * the secret, with a newline only on a terminal (as secret-tool does); exits 0, 1 when no
 * unlocked item matches, 2 on usage or D-Bus errors. sd_bus_open_user finds the bus through
 * DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#define DESTINATION "org.freedesktop.secrets"
#define SERVICE_PATH "/org/freedesktop/secrets"
#define SERVICE_INTERFACE "org.freedesktop.Secret.Service"

/* One call in flight: its reply, once it came. */
struct pending {
    const char *name;
    sd_bus_message *reply;
};

static _Noreturn void fail(const char *what, int r) {
    fprintf(stderr, "bench-floor: %s: %s\n", what, strerror(-r));
    exit(2);
}

static void check(const struct pending *call) {
    const sd_bus_error *error = sd_bus_message_get_error(call->reply);
    if (error) {
        fprintf(stderr, "bench-floor: %s: %s: %s\n", call->name, error->name, error->message);
        exit(2);
    }
}

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    struct pending *call = userdata;
    call->reply = sd_bus_message_ref(reply);
    return 0;
}

static void send_call(sd_bus *bus, sd_bus_message *message, struct pending *call) {
    int r = sd_bus_call_async(bus, NULL, message, on_reply, call, 0);
    if (r < 0)
        fail(call->name, r);
    sd_bus_message_unref(message);
}

/* Dispatches until every call in calls has its reply. */
static void wait_for(sd_bus *bus, struct pending *calls, size_t count) {
    for (;;) {
        size_t done = 0;
        for (size_t i = 0; i < count; i++)
            done += calls[i].reply != NULL;
        if (done == count)
            return;
        int r = sd_bus_process(bus, NULL);
        if (r < 0)
            fail("sd_bus_process", r);
        if (r > 0)
            continue;
        r = sd_bus_wait(bus, UINT64_MAX);
        if (r < 0 && r != -EINTR)
            fail("sd_bus_wait", r);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench-floor SERVICE ACCOUNT\n");
        return 2;
    }
    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r < 0)
        fail("sd_bus_open_user", r);

    struct pending introduction = {"Get", NULL};
    sd_bus_message *message = NULL;
    r = sd_bus_message_new_method_call(bus, &message, DESTINATION, SERVICE_PATH, "org.freedesktop.DBus.Properties",
                                       "Get");
    if (r < 0 || (r = sd_bus_message_append(message, "ss", SERVICE_INTERFACE, "Collections")) < 0)
        fail("Get", r);
    send_call(bus, message, &introduction);
    wait_for(bus, &introduction, 1);
    sd_bus_message_unref(introduction.reply);

    struct pending calls[2] = {{"OpenSession", NULL}, {"SearchItems", NULL}};
    r = sd_bus_message_new_method_call(bus, &message, DESTINATION, SERVICE_PATH, SERVICE_INTERFACE, "OpenSession");
    if (r < 0 || (r = sd_bus_message_append(message, "sv", "plain", "s", "")) < 0)
        fail("OpenSession", r);
    send_call(bus, message, &calls[0]);
    r = sd_bus_message_new_method_call(bus, &message, DESTINATION, SERVICE_PATH, SERVICE_INTERFACE, "SearchItems");
    if (r < 0 || (r = sd_bus_message_append(message, "a{ss}", 2, "service", argv[1], "account", argv[2])) < 0)
        fail("SearchItems", r);
    send_call(bus, message, &calls[1]);
    wait_for(bus, calls, 2);
    check(&calls[0]);
    check(&calls[1]);

    const char *session = NULL, *item = NULL;
    if ((r = sd_bus_message_skip(calls[0].reply, "v")) < 0 ||
        (r = sd_bus_message_read(calls[0].reply, "o", &session)) < 0)
        fail("OpenSession reply", r);
    /* The unlocked items come first; a locked one would need Unlock (and maybe a prompt). */
    if ((r = sd_bus_message_enter_container(calls[1].reply, 'a', "o")) < 0 ||
        (r = sd_bus_message_read(calls[1].reply, "o", &item)) < 0)
        fail("SearchItems reply", r);
    if (r == 0)
        return 1;

    struct pending secrets = {"GetSecrets", NULL};
    r = sd_bus_message_new_method_call(bus, &message, DESTINATION, SERVICE_PATH, SERVICE_INTERFACE, "GetSecrets");
    if (r < 0 || (r = sd_bus_message_append(message, "aoo", 1, item, session)) < 0)
        fail("GetSecrets", r);
    send_call(bus, message, &secrets);
    wait_for(bus, &secrets, 1);
    check(&secrets);

    /* a{o(oayays)}: item → (session, parameters, value, content type). */
    const void *value = NULL;
    size_t size = 0;
    sd_bus_message *reply = secrets.reply;
    if ((r = sd_bus_message_enter_container(reply, 'a', "{o(oayays)}")) <= 0 ||
        (r = sd_bus_message_enter_container(reply, 'e', "o(oayays)")) <= 0 ||
        (r = sd_bus_message_skip(reply, "o")) < 0 || (r = sd_bus_message_enter_container(reply, 'r', "oayays")) < 0 ||
        (r = sd_bus_message_skip(reply, "oay")) < 0 || (r = sd_bus_message_read_array(reply, 'y', &value, &size)) < 0)
        fail("GetSecrets reply", r == 0 ? -ENOENT : r);
    fwrite(value, 1, size, stdout);
    if (isatty(STDOUT_FILENO))
        putchar('\n');
    if (fflush(stdout) != 0)
        return 2;

    sd_bus_message_unref(secrets.reply);
    sd_bus_message_unref(calls[0].reply);
    sd_bus_message_unref(calls[1].reply);
    sd_bus_flush_close_unref(bus);
    return 0;
}
