# cmake -DIN=<file> -DOUT=<file.inc> -P EmbedText.cmake
# Writes the bytes of IN as a comma-separated list of hex literals, to be
# included inside a char array initializer (portable; no raw-string limits).
file(READ ${IN} _hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _body "${_hex}")
file(WRITE ${OUT} "${_body}\n")
