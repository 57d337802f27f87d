// Reading the user's text files and quoting their bytes in messages, shared by scene and mesh loading.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cl {

// Control characters (C0, DEL), C1 controls and bytes that are not UTF-8 written as escapes (\n, \t, \r, \e,
// \xNN), so that a name or a file's bytes quoted in a message never split its line or reach the terminal as an
// escape sequence. Printable ASCII and valid UTF-8 pass unchanged; the result of an escaped string is itself.
std::string escape_for_message(std::string_view text);

// Reads the whole of a regular file into `text`. Anything else (a directory, a pipe, a device such as
// /dev/zero) and a file larger than `max_bytes` are refused with a one-line message in `error`, which starts
// with the path and names `what` ("scene file", "mesh file"). The file is opened without blocking, so a named
// pipe with no writer cannot hang the caller.
bool read_text_file(const std::string& path, std::size_t max_bytes, const char* what, std::string& text,
                    std::string& error);

// A CSV field (RFC 4180): as it is when it holds no comma, quote or line break, else in double quotes with its
// quotes doubled.
std::string csv_field(std::string_view text);

}  // namespace cl
