/// Recursive-descent parser from tokens to a `GraphQLDocument` (nesting bounded).
struct GraphQLParser {
    typealias SyntaxError = GraphQLLexer.SyntaxError
    typealias Doc = GraphQLDocument
    static let maxDepth = 32

    private let tokens: [GraphQLLexer.Token]
    private var pos = 0
    private var depth = 0

    /// Parses a whole document.
    static func parse(_ text: String) throws(SyntaxError) -> GraphQLDocument {
        var parser = GraphQLParser(tokens: try GraphQLLexer.tokenize(text))
        return try parser.document()
    }

    private init(tokens: [GraphQLLexer.Token]) {
        self.tokens = tokens
    }

    private var current: GraphQLLexer.Token { tokens[min(pos, tokens.count - 1)] }

    private func describe(_ t: GraphQLLexer.Token) -> String {
        switch t {
        case .punctuator(let p): return "\"\(p)\""
        case .name(let n): return "Name \"\(n)\""
        case .int(let v), .float(let v): return "Number \"\(v)\""
        case .string: return "String"
        case .end: return "<EOF>"
        }
    }

    private func unexpected() -> SyntaxError {
        SyntaxError(message: "Syntax Error: Unexpected \(describe(current)).")
    }

    private mutating func expect(_ p: String) throws(SyntaxError) {
        guard current == .punctuator(p) else {
            throw SyntaxError(message: "Syntax Error: Expected \"\(p)\", found \(describe(current)).")
        }
        pos += 1
    }

    private mutating func skip(_ p: String) -> Bool {
        if current == .punctuator(p) {
            pos += 1
            return true
        }
        return false
    }

    private mutating func name() throws(SyntaxError) -> String {
        guard case .name(let n) = current else {
            throw SyntaxError(message: "Syntax Error: Expected Name, found \(describe(current)).")
        }
        pos += 1
        return n
    }

    private mutating func document() throws(SyntaxError) -> GraphQLDocument {
        var doc = GraphQLDocument()
        repeat {
            switch current {
            case .punctuator("{"):
                doc.operations.append(Doc.Operation(kind: "query", name: nil, variables: [],
                                                    selections: try selectionSet()))
            case .name("query"), .name("mutation"), .name("subscription"):
                doc.operations.append(try operation())
            case .name("fragment"):
                let f = try fragment()
                doc.fragments[f.name] = f
            default:
                throw unexpected()
            }
        } while current != .end
        return doc
    }

    private mutating func operation() throws(SyntaxError) -> Doc.Operation {
        let kind = try name()
        var opName: String?
        if case .name = current { opName = try name() }
        var variables: [Doc.VariableDefinition] = []
        if skip("(") {
            while !skip(")") {
                try expect("$")
                let varName = try name()
                try expect(":")
                let type = try typeReference()
                let defaultValue: Doc.Value? = skip("=") ? try value(constant: true) : nil
                variables.append(Doc.VariableDefinition(name: varName, type: type, defaultValue: defaultValue))
            }
        }
        _ = try directives()
        return Doc.Operation(kind: kind, name: opName, variables: variables, selections: try selectionSet())
    }

    private mutating func fragment() throws(SyntaxError) -> Doc.Fragment {
        pos += 1 // "fragment"
        let fragName = try name()
        guard fragName != "on" else { throw unexpected() }
        guard try name() == "on" else { throw SyntaxError(message: "Syntax Error: Expected \"on\".") }
        let type = try name()
        _ = try directives()
        return Doc.Fragment(name: fragName, typeCondition: type, selections: try selectionSet())
    }

    private mutating func typeReference() throws(SyntaxError) -> String {
        var t: String
        if skip("[") {
            t = "[" + (try typeReference()) + "]"
            try expect("]")
        } else {
            t = try name()
        }
        if skip("!") { t += "!" }
        return t
    }

    private mutating func selectionSet() throws(SyntaxError) -> [Doc.Selection] {
        try expect("{")
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw SyntaxError(message: "Syntax Error: Document nested too deeply.") }
        var selections: [Doc.Selection] = []
        while !skip("}") {
            if skip("...") {
                if case .name(let n) = current, n != "on" {
                    pos += 1
                    selections.append(.fragmentSpread(name: n, directives: try directives()))
                } else {
                    var typeCondition: String?
                    if current == .name("on") {
                        pos += 1
                        typeCondition = try name()
                    }
                    let dirs = try directives()
                    selections.append(.inlineFragment(typeCondition: typeCondition, directives: dirs,
                                                      selections: try selectionSet()))
                }
            } else {
                selections.append(.field(try field()))
            }
        }
        guard !selections.isEmpty else { throw SyntaxError(message: "Syntax Error: Expected Name, found \"}\".") }
        return selections
    }

    private mutating func field() throws(SyntaxError) -> Doc.Field {
        var alias: String?
        var fieldName = try name()
        if skip(":") {
            alias = fieldName
            fieldName = try name()
        }
        var arguments: [(name: String, value: Doc.Value)] = []
        if skip("(") {
            while !skip(")") {
                let argName = try name()
                try expect(":")
                arguments.append((argName, try value(constant: false)))
            }
        }
        let dirs = try directives()
        let selections: [Doc.Selection]? = current == .punctuator("{") ? try selectionSet() : nil
        return Doc.Field(alias: alias, name: fieldName, arguments: arguments, directives: dirs, selections: selections)
    }

    private mutating func directives() throws(SyntaxError) -> [Doc.Directive] {
        var result: [Doc.Directive] = []
        while skip("@") {
            let dirName = try name()
            var args: [String: Doc.Value] = [:]
            if skip("(") {
                while !skip(")") {
                    let argName = try name()
                    try expect(":")
                    args[argName] = try value(constant: false)
                }
            }
            result.append(Doc.Directive(name: dirName, arguments: args))
        }
        return result
    }

    private mutating func value(constant: Bool) throws(SyntaxError) -> Doc.Value {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw SyntaxError(message: "Syntax Error: Value nested too deeply.") }
        let token = current
        pos += 1
        switch token {
        case .punctuator("$") where !constant:
            return .variable(try name())
        case .int(let s):
            guard let v = Int(s) else { throw unexpected() }
            return .int(v)
        case .float(let s):
            guard let v = Double(s) else { throw unexpected() }
            return .float(v)
        case .string(let s):
            return .string(s)
        case .name("true"): return .bool(true)
        case .name("false"): return .bool(false)
        case .name("null"): return .null
        case .name(let n): return .enumValue(n)
        case .punctuator("["):
            var items: [Doc.Value] = []
            while !skip("]") { items.append(try value(constant: constant)) }
            return .list(items)
        case .punctuator("{"):
            var fields: [String: Doc.Value] = [:]
            while !skip("}") {
                let key = try name()
                try expect(":")
                fields[key] = try value(constant: constant)
            }
            return .object(fields)
        default:
            pos -= 1
            throw unexpected()
        }
    }
}
