// The C side of the one curses screen (Sources/loupe/Terminal/CursesTerminal.swift).
//
// Swift cannot import curses macros (A_BOLD, COLOR_PAIR, getcurx, attr_set, get_wch, timeout…) and rejects the
// mutable globals (stdscr, LINES, COLS, stdout) under Swift 6 concurrency checking, so they are wrapped here as
// small static inline functions. Nothing else in the project includes curses.
#ifndef LOUPE_CNCURSES_SHIM_H
#define LOUPE_CNCURSES_SHIM_H

#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1

#include <locale.h>
#include <poll.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#if __has_include(<ncursesw/curses.h>)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

// Globals.
static inline int loupe_lines(void) { return LINES; }
static inline int loupe_cols(void) { return COLS; }
static inline int loupe_colors(void) { return COLORS; }
static inline int loupe_cursor_x(void) { return getcurx(stdscr); }

// Attributes and colour pairs.
static inline attr_t loupe_a_normal(void) { return A_NORMAL; }
static inline attr_t loupe_a_bold(void) { return A_BOLD; }
static inline attr_t loupe_a_reverse(void) { return A_REVERSE; }
static inline attr_t loupe_a_dim(void) { return A_DIM; }
static inline attr_t loupe_a_underline(void) { return A_UNDERLINE; }
static inline attr_t loupe_color_pair(short pair) { return (attr_t)COLOR_PAIR(pair); }

// Keys.
static inline int loupe_key_code_yes(void) { return KEY_CODE_YES; }
static inline int loupe_key_up(void) { return KEY_UP; }
static inline int loupe_key_down(void) { return KEY_DOWN; }
static inline int loupe_key_left(void) { return KEY_LEFT; }
static inline int loupe_key_right(void) { return KEY_RIGHT; }
static inline int loupe_key_ppage(void) { return KEY_PPAGE; }
static inline int loupe_key_npage(void) { return KEY_NPAGE; }
static inline int loupe_key_home(void) { return KEY_HOME; }
static inline int loupe_key_end(void) { return KEY_END; }
static inline int loupe_key_enter(void) { return KEY_ENTER; }
static inline int loupe_key_backspace(void) { return KEY_BACKSPACE; }
static inline int loupe_key_dc(void) { return KEY_DC; }
static inline int loupe_key_btab(void) { return KEY_BTAB; }
static inline int loupe_key_resize(void) { return KEY_RESIZE; }

/// Starts curses on the process's terminal; NULL when the terminal cannot be used (unlike initscr, which exits).
static inline SCREEN *loupe_newterm(void) { return newterm(NULL, stdout, stdin); }

/// cbreak, no echo, keypad keys decoded, hidden cursor, and a 5 ms Esc delay: a terminal writes a key's escape
/// sequence at once, so its bytes are already waiting when the ESC is read, and Esc answers within a frame.
static inline void loupe_configure_input(void) {
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(5);
}

// Mouse: left presses and the wheel, reported at once (no click-interval wait; the TUI times double clicks).
static inline int loupe_key_mouse(void) { return KEY_MOUSE; }
static inline void loupe_enable_mouse(void) {
    mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
}
/// Reads the pending mouse event: 1 a left press, 2 the wheel up, 3 the wheel down, 0 anything else.
static inline int loupe_get_mouse(int *x, int *y) {
    MEVENT event;
    if (getmouse(&event) != OK) return 0;
    *x = event.x;
    *y = event.y;
    if (event.bstate & BUTTON1_PRESSED) return 1;
    if (event.bstate & BUTTON4_PRESSED) return 2;
#ifdef BUTTON5_PRESSED
    if (event.bstate & BUTTON5_PRESSED) return 3;
#endif
    return 0;
}

// Bracketed paste (xterm's mode 2004): the terminal wraps pasted text in ESC[200~ … ESC[201~, which curses
// reports as these two key codes (beyond KEY_MAX, so no terminfo key collides with them).
static inline int loupe_key_paste_start(void) { return KEY_MAX + 1; }
static inline int loupe_key_paste_end(void) { return KEY_MAX + 2; }
static inline void loupe_bracketed_paste(int on) {
    if (on) {
        define_key("\033[200~", KEY_MAX + 1);
        define_key("\033[201~", KEY_MAX + 2);
    }
    fputs(on ? "\033[?2004h" : "\033[?2004l", stdout);
    fflush(stdout);
}

// Inside a bracketed paste every byte is text, so it is read from the terminal in bulk rather than one curses key
// (one read(2) of one byte, and escape-sequence matching) per character: a 10,000-character paste was 10,000
// syscalls. Curses reads a key's bytes one at a time, so once it has reported the paste's start nothing of the paste
// waits in its own queue. Waits at most `milliseconds` for the first byte; -1 on silence or an error.
static inline int loupe_read_bytes(int milliseconds, unsigned char *buffer, int capacity) {
    struct pollfd terminal = { .fd = 0, .events = POLLIN };
    if (poll(&terminal, 1, milliseconds) <= 0) return -1;
    ssize_t count = read(0, buffer, (size_t)capacity);
    return count <= 0 ? -1 : (int)count;
}
/// Gives curses back the bytes read past a paste's end (keys typed after it), in order.
static inline void loupe_unread_bytes(const unsigned char *bytes, int count) {
    for (int index = count - 1; index >= 0; index--) ungetch(bytes[index]);
}

/// Leaves curses mode for a child program (an editor) and comes back to it, redrawing the whole screen.
static inline void loupe_suspend(void) { def_prog_mode(); endwin(); }
static inline void loupe_resume(void) { reset_prog_mode(); clearok(curscr, TRUE); refresh(); }

/// Whether terminfo says the terminal takes OSC 52 clipboard writes (tmux's `Ms` extension).
static inline int loupe_terminfo_has_ms(void) {
    char *value = tigetstr("Ms");
    return value != NULL && value != (char *)-1;
}
/// Writes `text` straight to the terminal, after curses' own output.
static inline void loupe_write_raw(const char *text) {
    fputs(text, stdout);
    fflush(stdout);
}

static inline void loupe_erase(void) { erase(); }
static inline void loupe_refresh(void) { refresh(); }
static inline void loupe_set_style(attr_t attrs, short pair) { attr_set(attrs, pair, NULL); }

/// Writes up to 8 code points at (y, x); spacing characters take cells, combining ones attach to the previous.
static inline int loupe_put(int y, int x, const unsigned int *codepoints, int count) {
    wchar_t text[9];
    if (count > 8) count = 8;
    for (int i = 0; i < count; i++) text[i] = (wchar_t)codepoints[i];
    text[count] = 0;
    return mvaddnwstr(y, x, text, count);
}

/// Waits up to `milliseconds` (0: do not wait) for input; returns OK, KEY_CODE_YES or ERR like get_wch.
/// `loupe_read`, also ending the wait (ERR) when `wake_fd` becomes readable. What curses already holds (a key
/// given back, the rest of a sequence) is taken first without waiting; a signal (SIGWINCH) ends the poll early,
/// and the next read returns KEY_RESIZE.
static inline int loupe_read_watching(int milliseconds, int wake_fd, unsigned int *out) {
    wint_t ch = 0;
    timeout(0);
    int rc = get_wch(&ch);
    if (rc != ERR) { *out = (unsigned int)ch; return rc; }
    struct pollfd fds[2] = { { .fd = 0, .events = POLLIN }, { .fd = wake_fd, .events = POLLIN } };
    if (poll(fds, 2, milliseconds) <= 0 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return ERR;
    timeout(milliseconds < 25 ? milliseconds : 25);
    rc = get_wch(&ch);
    *out = (unsigned int)ch;
    return rc;
}

static inline int loupe_read(int milliseconds, unsigned int *out) {
    wint_t ch = 0;
    timeout(milliseconds);
    int rc = get_wch(&ch);
    *out = (unsigned int)ch;
    return rc;
}

#endif
