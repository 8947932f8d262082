/// A small typed HTML tree. Text and attribute values are escaped when rendered, so a view
/// cannot inject markup by accident; `Node.raw` exists only for trusted constant snippets.
public indirect enum Node: Sendable {
    case element(String, [Attribute], [Node])
    case void(String, [Attribute])
    case text(String)
    case raw(String)
    case fragment([Node])

    public func render() -> String {
        var output = ""
        render(into: &output)
        return output
    }

    func render(into output: inout String) {
        switch self {
        case let .element(tag, attributes, children):
            output += "<\(tag)"
            for attribute in attributes { attribute.render(into: &output) }
            output += ">"
            for child in children { child.render(into: &output) }
            output += "</\(tag)>"
        case let .void(tag, attributes):
            output += "<\(tag)"
            for attribute in attributes { attribute.render(into: &output) }
            output += ">"
        case let .text(text):
            output += escapeHTML(text)
        case let .raw(html):
            output += html
        case let .fragment(children):
            for child in children { child.render(into: &output) }
        }
    }
}

public struct Attribute: Sendable {
    let name: String
    let value: String?

    public init(_ name: String, _ value: String?) {
        self.name = name
        self.value = value
    }

    func render(into output: inout String) {
        output += " \(name)"
        if let value { output += "=\"\(escapeHTML(value))\"" }
    }

    public static func `class`(_ value: String) -> Attribute { .init("class", value) }
    public static func id(_ value: String) -> Attribute { .init("id", value) }
    public static func href(_ value: String) -> Attribute { .init("href", value) }
    public static func src(_ value: String) -> Attribute { .init("src", value) }
    public static func type(_ value: String) -> Attribute { .init("type", value) }
    public static func name(_ value: String) -> Attribute { .init("name", value) }
    public static func value(_ value: String) -> Attribute { .init("value", value) }
    public static func action(_ value: String) -> Attribute { .init("action", value) }
    public static func method(_ value: String) -> Attribute { .init("method", value) }
    public static func `for`(_ value: String) -> Attribute { .init("for", value) }
    public static func placeholder(_ value: String) -> Attribute { .init("placeholder", value) }
    public static func autocomplete(_ value: String) -> Attribute { .init("autocomplete", value) }
    public static func lang(_ value: String) -> Attribute { .init("lang", value) }
    public static func role(_ value: String) -> Attribute { .init("role", value) }
    public static func aria(_ name: String, _ value: String) -> Attribute { .init("aria-\(name)", value) }
    public static func data(_ name: String, _ value: String) -> Attribute { .init("data-\(name)", value) }
    public static var required: Attribute { .init("required", nil) }
    public static var autofocus: Attribute { .init("autofocus", nil) }
    public static var checked: Attribute { .init("checked", nil) }
    public static var selected: Attribute { .init("selected", nil) }
    public static var disabled: Attribute { .init("disabled", nil) }
    public static func minlength(_ value: Int) -> Attribute { .init("minlength", String(value)) }
    public static func maxlength(_ value: Int) -> Attribute { .init("maxlength", String(value)) }
}

/// The one escaper for text inside markup Hibi writes: HTML pages, SVG share cards and GPX files.
/// Control characters other than tab and newlines are dropped: XML 1.0 forbids them even escaped, and a
/// visit name pasted with one must not make the whole GPX export unreadable.
@inline(__always)
func escapeHTML(_ text: String) -> String {
    // Scalar by scalar, not Character by Character: a `"` or `<` followed by a combining mark (U+0301, U+0338) is one
    // Character, which never equalled "\"" or "<", so the quote went out raw and closed the attribute it was in
    // (a visit named `"\u{301} autofocus onfocus=…` added its own attributes to the edit form; MarkupEscapeTests).
    // Most text has nothing to escape: it is returned as it is after one pass over its bytes.
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
        return text
    }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result.append(contentsOf: "&amp;".unicodeScalars)
        case "<": result.append(contentsOf: "&lt;".unicodeScalars)
        case ">": result.append(contentsOf: "&gt;".unicodeScalars)
        case "\"": result.append(contentsOf: "&quot;".unicodeScalars)
        case "'": result.append(contentsOf: "&#39;".unicodeScalars)
        case "\t", "\n", "\r": result.append(scalar)
        default:
            if scalar.value >= 0x20 { result.append(scalar) }
        }
    }
    return String(result)
}

@resultBuilder
public enum NodeBuilder {
    public static func buildBlock(_ parts: [Node]...) -> [Node] { parts.flatMap { $0 } }
    public static func buildExpression(_ node: Node) -> [Node] { [node] }
    public static func buildExpression(_ nodes: [Node]) -> [Node] { nodes }
    public static func buildExpression(_ text: String) -> [Node] { [.text(text)] }
    public static func buildOptional(_ nodes: [Node]?) -> [Node] { nodes ?? [] }
    public static func buildEither(first nodes: [Node]) -> [Node] { nodes }
    public static func buildEither(second nodes: [Node]) -> [Node] { nodes }
    public static func buildArray(_ parts: [[Node]]) -> [Node] { parts.flatMap { $0 } }
}

public func el(_ tag: String, _ attributes: Attribute..., @NodeBuilder content: () -> [Node] = { [] }) -> Node {
    .element(tag, attributes, content())
}

public func el(_ tag: String, _ attributes: [Attribute], @NodeBuilder content: () -> [Node] = { [] }) -> Node {
    .element(tag, attributes, content())
}

public func input(_ attributes: Attribute...) -> Node { .void("input", attributes) }
public func meta(_ attributes: Attribute...) -> Node { .void("meta", attributes) }
public func link(_ attributes: Attribute...) -> Node { .void("link", attributes) }
public func br() -> Node { .void("br", []) }
public func fragment(@NodeBuilder content: () -> [Node]) -> Node { .fragment(content()) }
