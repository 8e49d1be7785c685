package org.rpcrdma4j.nfs3.localfs;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;

/**
 * PathBytes - file names and symbolic link data as the bytes the kernel stores, mapped to and
 * from {@link Path} exactly, whatever the JVM's locale.
 *
 * <p>java.nio.file maps a String to path bytes, and path bytes to a String, with the charset
 * of {@code sun.jnu.encoding}, which the JVM takes from the locale at start (LC_ALL, LC_CTYPE,
 * LANG) and which cannot be overridden on JDK 17 ({@code -Dsun.jnu.encoding} is ignored,
 * {@code -Dfile.encoding} does not affect it). In the C locale it is ANSI_X3.4-1968: a
 * String with any non-ASCII character cannot become a path (InvalidPathException), and a
 * non-ASCII byte on disk reads back as U+FFFD. Under UTF-8, bytes that are not UTF-8 read
 * back as U+FFFD too. Inside a {@link Path}, though, the JDK keeps the raw bytes: a
 * directory entry, {@link java.nio.file.Files#readSymbolicLink} and
 * {@link Path#of(URI)} of a percent-encoded {@code file:} URI all carry them unchanged, and
 * {@link Path#toUri()} percent-encodes them. So:
 * <ul>
 * <li>bytes to path: a String when the bytes decode strictly in the path charset and that
 *     charset re-encodes them exactly (the common case, no cost beyond decoding); otherwise
 *     each component from a percent-encoded URI.</li>
 * <li>path to bytes: the path's String when it decoded without U+FFFD in a charset that
 *     re-encodes exactly; otherwise each component from its URI. {@code toUri} stats the path
 *     to add a '/' after a directory; the component is put below {@code /dev/null}, so that
 *     stat fails at once with ENOTDIR whatever the name.</li>
 * </ul>
 * One rule of java.nio.file stays: a path built from bytes is normalized, so in symbolic link
 * data a run of '/' is stored as one and a trailing '/' is dropped. Everything else, names
 * that are not text in any charset included, is byte-exact. Stateless and thread-safe.
 */
public final class PathBytes {

    /** The charset java.nio.file maps paths with in this JVM. */
    public static final Charset PATH_CHARSET = pathCharset();

    /** Charsets whose strict decoding is undone exactly by encoding. */
    private static final Set<Charset> EXACT = Set.of(StandardCharsets.UTF_8, StandardCharsets.US_ASCII,
            StandardCharsets.ISO_8859_1);
    private static final boolean EXACT_STRINGS = EXACT.contains(PATH_CHARSET);
    private static final Path NOT_A_DIRECTORY = Path.of("/dev/null");
    private static final String NOT_A_DIRECTORY_URI = "/dev/null/";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private PathBytes() {
    }

    private static Charset pathCharset() {
        String name = System.getProperty("sun.jnu.encoding");
        try {
            return name == null ? Charset.defaultCharset() : Charset.forName(name);
        } catch (IllegalArgumentException unknown) {
            return Charset.defaultCharset();
        }
    }

    /** Whether names outside ASCII map to paths without the URI fallback (a UTF-8 locale). */
    public static boolean pathCharsetIsUtf8() {
        return PATH_CHARSET.equals(StandardCharsets.UTF_8);
    }

    /**
     * The relative path of one name component.
     *
     * @param name the bytes, MUST be non-empty without '/' or NUL (the caller checks: nfs3 in {@code Names})
     */
    public static Path component(byte[] name) {
        String text = exactString(name);
        if (text != null) {
            return Path.of(text);
        }
        return Path.of(URI.create("file:///" + percentEncode(name))).getFileName();
    }

    /**
     * The path for symbolic link data: absolute if it starts with '/', else relative.
     *
     * @param data the bytes, MUST be non-empty without NUL
     */
    public static Path path(byte[] data) {
        String text = exactString(data);
        if (text != null) {
            return Path.of(text);
        }
        boolean absolute = data[0] == '/';
        Path path = absolute ? Path.of("/") : null;
        int start = 0;
        for (int i = 0; i <= data.length; i++) {
            if (i == data.length || data[i] == '/') {
                if (i > start) {
                    byte[] name = new byte[i - start];
                    System.arraycopy(data, start, name, 0, name.length);
                    Path component = component(name);
                    path = path == null ? component : path.resolve(component);
                }
                start = i + 1;
            }
        }
        return path == null ? Path.of("/") : path;
    }

    /** The bytes of a path's last component (a directory entry's name). */
    public static byte[] nameOf(Path path) {
        Path name = path.getFileName();
        if (name == null) {
            return new byte[0];
        }
        byte[] fast = exactBytes(name.toString());
        return fast != null ? fast : componentBytes(name);
    }

    /** The bytes of a whole path (symbolic link data), components joined by single '/'. */
    public static byte[] bytesOf(Path path) {
        byte[] fast = exactBytes(path.toString());
        if (fast != null) {
            return fast;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        if (path.isAbsolute()) {
            bytes.write('/');
        }
        for (int i = 0; i < path.getNameCount(); i++) {
            if (i > 0) {
                bytes.write('/');
            }
            bytes.writeBytes(componentBytes(path.getName(i)));
        }
        return bytes.toByteArray();
    }

    /** Bytes to a String that maps back to exactly those bytes, or null. */
    private static String exactString(byte[] bytes) {
        if (!EXACT_STRINGS) {
            return null;
        }
        try {
            return PATH_CHARSET.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException notText) {
            return null;
        }
    }

    /** The bytes of a path String that decoded without loss, or null if it may have lost some. */
    private static byte[] exactBytes(String text) {
        if (!EXACT_STRINGS || text.indexOf('\uFFFD') >= 0) {
            return null;
        }
        try {
            ByteBuffer encoded = PATH_CHARSET.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).encode(CharBuffer.wrap(text));
            byte[] bytes = new byte[encoded.remaining()];
            encoded.get(bytes);
            return bytes;
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** A single component's raw bytes through its percent-encoded URI. */
    private static byte[] componentBytes(Path component) {
        String raw = NOT_A_DIRECTORY.resolve(component).toUri().getRawPath();
        int end = raw.endsWith("/") ? raw.length() - 1 : raw.length();
        return percentDecode(raw, NOT_A_DIRECTORY_URI.length(), end);
    }

    private static String percentEncode(byte[] bytes) {
        StringBuilder encoded = new StringBuilder(bytes.length * 3);
        for (byte b : bytes) {
            encoded.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
        }
        return encoded.toString();
    }

    private static byte[] percentDecode(String raw, int from, int to) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                bytes.write(Character.digit(raw.charAt(i + 1), 16) << 4 | Character.digit(raw.charAt(i + 2), 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toByteArray();
    }
}
