const MARK = 'CHAINSMITH-MESON-OPTIONS';

/** A project option whose name says it builds documentation: docs, build-docs, gtk_doc, man-pages, enable_man, doxygen. */
const DOC_OPTION = String.raw`(^|[-_])(docs?|documentation|man[-_]?pages|gtk[-_]?doc|doxygen)$|^((build|enable|with|install)[-_])?(man|manual)$`;

/**
 * Shell that sets `off` to the `-D` arguments of `meson setup` that turn the project's documentation
 * options off (a boolean false, a feature disabled), read from the source tree's options before any
 * configuration. Tests never need the documentation, and its tools (c2man, gtk-doc, doxygen, sphinx)
 * are not in the image: a project whose documentation is on by default and needs one could not even
 * be configured (fribidi's `docs` needs c2man).
 */
export const MESON_DOCS_OFF = `off=$(meson introspect --buildoptions meson.build 2>/dev/null | python3 -c "$(cat <<'${MARK}'
import json, re, sys
DOC = re.compile(r"${DOC_OPTION}", re.I)
for o in json.load(sys.stdin):
    if o.get("section") != "user" or not DOC.search(o["name"]): continue
    if o["type"] == "boolean" and o["value"]: print("-D%s=false" % o["name"])
    elif o["type"] == "feature" and o["value"] != "disabled": print("-D%s=disabled" % o["name"])
${MARK}
)" || true)`;
