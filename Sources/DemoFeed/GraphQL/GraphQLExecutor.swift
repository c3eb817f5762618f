/// Answers a GraphQL POST body against the launches data set: parse, validate, execute.
/// Request, parse and validation errors → HTTP 400 with `errors` only (as Apollo Server);
/// an unknown launch id → `{"data":{"launch":null}}`.
struct GraphQLExecutor {
    typealias Doc = GraphQLDocument
    typealias Input = GraphQLRequest.Input

    struct Failure: Error {
        var messages: [String]
        var code: String
    }

    let dataset: FeedDataset
    /// Base URL for image links.
    let base: String

    /// HTTP status and JSON body for a request body.
    func respond(to body: [UInt8]) -> (status: Int, json: JSON) {
        do {
            return (200, .object([("data", try execute(body))]))
        } catch {
            let errors = error.messages.map { message -> JSON in
                .object([("message", .string(message)), ("extensions", .object([("code", .string(error.code))]))])
            }
            return (400, .object([("errors", .array(errors))]))
        }
    }

    private func execute(_ body: [UInt8]) throws(Failure) -> JSON {
        guard let request = GraphQLRequest.decode(body) else {
            throw Failure(messages: ["POST body must be JSON with a 'query' string"], code: "BAD_REQUEST")
        }
        let doc: Doc
        do {
            doc = try GraphQLParser.parse(request.query)
        } catch {
            throw Failure(messages: [error.message], code: "GRAPHQL_PARSE_FAILED")
        }
        let operation = try selectOperation(doc, name: request.operationName)
        let problems = GraphQLSchema.validate(operation, in: doc)
        guard problems.isEmpty else { throw Failure(messages: problems, code: "GRAPHQL_VALIDATION_FAILED") }
        let variables = try coerceVariables(operation, request.variables ?? [:])
        let context = Context(doc: doc, variables: variables, dataset: dataset, base: base)
        return try context.object(operation.selections, .Query, .query)
    }

    private func selectOperation(_ doc: Doc, name: String?) throws(Failure) -> Doc.Operation {
        if let name, !name.isEmpty {
            guard let op = doc.operations.first(where: { $0.name == name }) else {
                throw Failure(messages: ["Unknown operation named \"\(name)\"."], code: "OPERATION_RESOLUTION_FAILURE")
            }
            return op
        }
        guard doc.operations.count == 1, let op = doc.operations.first else {
            throw Failure(messages: [doc.operations.isEmpty ? "Must provide an operation."
                                     : "Must provide operation name if query contains multiple operations."],
                          code: "OPERATION_RESOLUTION_FAILURE")
        }
        return op
    }

    private func coerceVariables(_ op: Doc.Operation, _ given: [String: Input]) throws(Failure) -> [String: Input] {
        var out: [String: Input] = [:]
        for def in op.variables {
            var value = given[def.name]
            if value == nil, let d = def.defaultValue { value = Context.literal(d, [:]) }
            if def.type.hasSuffix("!"), value == nil || value == .null {
                throw Failure(messages: ["Variable \"$\(def.name)\" of required type \"\(def.type)\" was not provided."],
                              code: "BAD_USER_INPUT")
            }
            out[def.name] = value ?? .null
        }
        return out
    }

    /// Execution state for one operation.
    private struct Context {
        enum Node {
            case query
            case connection(ids: [Int], cursor: String, hasMore: Bool)
            case launch(FeedDataset.Launch)
            case mission(FeedDataset.Launch)
            case rocket(FeedDataset.Launch)
        }

        let doc: Doc
        let variables: [String: Input]
        let dataset: FeedDataset
        let base: String

        static func literal(_ v: Doc.Value, _ variables: [String: Input]) -> Input {
            switch v {
            case .variable(let n): return variables[n] ?? .null
            case .int(let i): return .int(i)
            case .float(let d): return .double(d)
            case .string(let s), .enumValue(let s): return .string(s)
            case .bool(let b): return .bool(b)
            case .null: return .null
            case .list(let items): return .array(items.map { literal($0, variables) })
            case .object(let fields): return .object(fields.mapValues { literal($0, variables) })
            }
        }

        func argument(_ field: Doc.Field, _ name: String) -> Input {
            field.argument(name).map { Self.literal($0, variables) } ?? .null
        }

        func included(_ directives: [Doc.Directive]) -> Bool {
            for d in directives {
                let flag = d.arguments["if"].map { Self.literal($0, variables) } == .bool(true)
                if d.name == "skip", flag { return false }
                if d.name == "include", !flag { return false }
            }
            return true
        }

        /// Fields by response key, in order, with the sub-selections of repeated keys merged.
        func collect(_ selections: [Doc.Selection], into out: inout [(key: String, field: Doc.Field)], depth: Int = 0) {
            guard depth < 32 else { return }
            for selection in selections {
                switch selection {
                case .field(let f):
                    guard included(f.directives) else { continue }
                    if let i = out.firstIndex(where: { $0.key == f.responseKey }) {
                        if let more = f.selections { out[i].field.selections = (out[i].field.selections ?? []) + more }
                    } else {
                        out.append((f.responseKey, f))
                    }
                case .fragmentSpread(let name, let dirs):
                    if included(dirs), let fragment = doc.fragments[name] {
                        collect(fragment.selections, into: &out, depth: depth + 1)
                    }
                case .inlineFragment(_, let dirs, let subSelections):
                    if included(dirs) { collect(subSelections, into: &out, depth: depth + 1) }
                }
            }
        }

        func object(_ selections: [Doc.Selection], _ type: GraphQLSchema.TypeName, _ node: Node) throws(Failure) -> JSON {
            var fields: [(key: String, field: Doc.Field)] = []
            collect(selections, into: &fields)
            var members: [(String, JSON)] = []
            for (key, field) in fields {
                members.append((key, try value(of: field, type, node)))
            }
            return .object(members)
        }

        private func child(_ field: Doc.Field, _ type: GraphQLSchema.TypeName, _ node: Node?) throws(Failure) -> JSON {
            guard let node else { return .null }
            return try object(field.selections ?? [], type, node)
        }

        private func value(of field: Doc.Field, _ type: GraphQLSchema.TypeName, _ node: Node) throws(Failure) -> JSON {
            if field.name == "__typename" { return .string(type.rawValue) }
            switch node {
            case .query:
                if field.name == "launch" {
                    let launch: FeedDataset.Launch?
                    switch argument(field, "id") {
                    case .string(let s): launch = Int(s).flatMap { dataset.launch($0) }
                    case .int(let i): launch = dataset.launch(i)
                    default: throw Failure(messages: ["ID cannot represent the given value."], code: "BAD_USER_INPUT")
                    }
                    return try child(field, .Launch, launch.map { .launch($0) })
                }
                var pageSize = 20
                switch argument(field, "pageSize") {
                case .null: break
                case .int(let n): pageSize = n
                default: throw Failure(messages: ["Int cannot represent non-integer value for \"pageSize\"."], code: "BAD_USER_INPUT")
                }
                guard pageSize >= 1 else {
                    throw Failure(messages: ["\"pageSize\" must be >= 1 (got \(pageSize))."], code: "BAD_USER_INPUT")
                }
                var after: String?
                switch argument(field, "after") {
                case .null: break
                case .string(let s): after = s
                default: throw Failure(messages: ["String cannot represent a non string value for \"after\"."], code: "BAD_USER_INPUT")
                }
                let page = dataset.launchPage(after: after, pageSize: min(pageSize, 1000))
                return try child(field, .LaunchConnection, .connection(ids: page.ids, cursor: page.cursor, hasMore: page.hasMore))
            case .connection(let ids, let cursor, let hasMore):
                switch field.name {
                case "cursor": return .string(cursor)
                case "hasMore": return .bool(hasMore)
                default:
                    var items: [JSON] = []
                    for id in ids { items.append(try child(field, .Launch, dataset.launch(id).map { .launch($0) })) }
                    return .array(items)
                }
            case .launch(let l):
                switch field.name {
                case "id": return .string(String(l.id))
                case "site": return .string(l.site)
                case "isBooked": return .bool(false)
                case "mission": return try child(field, .Mission, .mission(l))
                default: return try child(field, .Rocket, .rocket(l))
                }
            case .mission(let l):
                if field.name == "name" { return .string(l.missionName) }
                let size = argument(field, "size")
                guard size == .null || size == .string("SMALL") || size == .string("LARGE") else {
                    throw Failure(messages: ["Value for \"size\" does not exist in \"PatchSize\" enum."], code: "BAD_USER_INPUT")
                }
                guard let p = l.patchID else { return .null }
                return .string(base + FeedDataset.patchPath(p, large: size != .string("SMALL")))
            case .rocket(let l):
                switch field.name {
                case "id": return .string(l.rocket.id)
                case "name": return .string(l.rocket.name)
                default: return .string(l.rocket.type)
                }
            }
        }
    }
}
