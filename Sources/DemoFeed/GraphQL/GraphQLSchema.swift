/// The fixed launches schema (Apollo fullstack tutorial) and static validation against it.
enum GraphQLSchema {
    enum TypeName: String {
        case Query, LaunchConnection, Launch, Mission, Rocket
    }

    enum ArgumentKind {
        case int, string, id, patchSize

        var typeName: String {
            switch self {
            case .int: return "Int"
            case .string: return "String"
            case .id: return "ID"
            case .patchSize: return "PatchSize"
            }
        }
    }

    struct FieldDefinition {
        var arguments: [String: ArgumentKind] = [:]
        var required: Set<String> = []
        /// nil for scalar (leaf) fields.
        var type: TypeName?
        /// Type as printed in messages.
        var printed: String
    }

    static let fields: [TypeName: [String: FieldDefinition]] = [
        .Query: [
            "launches": FieldDefinition(arguments: ["pageSize": .int, "after": .string], type: .LaunchConnection,
                                        printed: "LaunchConnection!"),
            "launch": FieldDefinition(arguments: ["id": .id], required: ["id"], type: .Launch, printed: "Launch"),
        ],
        .LaunchConnection: [
            "cursor": FieldDefinition(printed: "String!"),
            "hasMore": FieldDefinition(printed: "Boolean!"),
            "launches": FieldDefinition(type: .Launch, printed: "[Launch]!"),
        ],
        .Launch: [
            "id": FieldDefinition(printed: "ID!"),
            "site": FieldDefinition(printed: "String"),
            "mission": FieldDefinition(type: .Mission, printed: "Mission"),
            "rocket": FieldDefinition(type: .Rocket, printed: "Rocket"),
            "isBooked": FieldDefinition(printed: "Boolean!"),
        ],
        .Mission: [
            "name": FieldDefinition(printed: "String"),
            "missionPatch": FieldDefinition(arguments: ["size": .patchSize], printed: "String"),
        ],
        .Rocket: [
            "id": FieldDefinition(printed: "ID!"),
            "name": FieldDefinition(printed: "String"),
            "type": FieldDefinition(printed: "String"),
        ],
    ]

    /// Validation messages for `operation` (empty when valid).
    static func validate(_ operation: GraphQLDocument.Operation, in doc: GraphQLDocument) -> [String] {
        var errors: [String] = []
        guard operation.kind == "query" else {
            return ["Schema is not configured to execute \(operation.kind) operation."]
        }
        let defined = Set(operation.variables.map(\.name))
        let opLabel = operation.name.map { " by operation \"\($0)\"" } ?? ""
        func checkValue(_ v: GraphQLDocument.Value, _ kind: ArgumentKind) {
            switch (v, kind) {
            case (.variable(let name), _):
                if !defined.contains(name) { errors.append("Variable \"$\(name)\" is not defined\(opLabel).") }
            case (.null, _), (.int, .int), (.string, .string), (.string, .id), (.int, .id):
                break
            case (.enumValue(let e), .patchSize):
                if e != "SMALL", e != "LARGE" {
                    errors.append("Value \"\(e)\" does not exist in \"PatchSize\" enum.")
                }
            default:
                errors.append("\(kind.typeName) cannot represent value: \(describe(v))")
            }
        }
        func checkDirectives(_ dirs: [GraphQLDocument.Directive]) {
            for d in dirs {
                guard d.name == "skip" || d.name == "include" else {
                    errors.append("Unknown directive \"@\(d.name)\".")
                    continue
                }
                if let v = d.arguments["if"] {
                    if case .variable(let name) = v, !defined.contains(name) {
                        errors.append("Variable \"$\(name)\" is not defined\(opLabel).")
                    }
                } else {
                    errors.append("Directive \"@\(d.name)\" argument \"if\" of type \"Boolean!\" is required, but it was not provided.")
                }
            }
        }
        func walk(_ selections: [GraphQLDocument.Selection], _ type: TypeName, _ depth: Int) {
            guard depth < 32 else {
                errors.append("Selections nested too deeply (fragment cycle?).")
                return
            }
            for selection in selections {
                switch selection {
                case .field(let f):
                    checkDirectives(f.directives)
                    if f.name == "__typename" {
                        if f.selections != nil {
                            errors.append("Field \"__typename\" must not have a selection since type \"String!\" has no subfields.")
                        }
                        continue
                    }
                    guard let def = fields[type]?[f.name] else {
                        errors.append("Cannot query field \"\(f.name)\" on type \"\(type.rawValue)\".")
                        continue
                    }
                    for (name, value) in f.arguments {
                        guard let kind = def.arguments[name] else {
                            errors.append("Unknown argument \"\(name)\" on field \"\(type.rawValue).\(f.name)\".")
                            continue
                        }
                        checkValue(value, kind)
                    }
                    for name in def.required.sorted() where f.argument(name) == nil {
                        errors.append("Field \"\(f.name)\" argument \"\(name)\" of type \"ID!\" is required, but it was not provided.")
                    }
                    switch (def.type, f.selections) {
                    case (nil, nil): break
                    case (nil, .some):
                        errors.append("Field \"\(f.name)\" must not have a selection since type \"\(def.printed)\" has no subfields.")
                    case (.some, nil):
                        errors.append("Field \"\(f.name)\" of type \"\(def.printed)\" must have a selection of subfields. Did you mean \"\(f.name) { ... }\"?")
                    case (.some(let sub), .some(let subSelections)):
                        walk(subSelections, sub, depth + 1)
                    }
                case .fragmentSpread(let name, let dirs):
                    checkDirectives(dirs)
                    guard let fragment = doc.fragments[name] else {
                        errors.append("Unknown fragment \"\(name)\".")
                        continue
                    }
                    guard fragment.typeCondition == type.rawValue else {
                        errors.append("Fragment \"\(name)\" cannot be spread here as objects of type \"\(type.rawValue)\" can never be of type \"\(fragment.typeCondition)\".")
                        continue
                    }
                    walk(fragment.selections, type, depth + 1)
                case .inlineFragment(let condition, let dirs, let subSelections):
                    checkDirectives(dirs)
                    if let condition, condition != type.rawValue {
                        errors.append("Fragment cannot be spread here as objects of type \"\(type.rawValue)\" can never be of type \"\(condition)\".")
                        continue
                    }
                    walk(subSelections, type, depth + 1)
                }
            }
        }
        walk(operation.selections, .Query, 0)
        return errors
    }

    static func describe(_ v: GraphQLDocument.Value) -> String {
        switch v {
        case .string(let s): return "\"\(s)\""
        case .int(let i): return String(i)
        case .float(let d): return String(d)
        case .bool(let b): return String(b)
        case .enumValue(let e): return e
        case .null: return "null"
        case .variable(let n): return "$\(n)"
        case .list: return "[...]"
        case .object: return "{...}"
        }
    }
}
