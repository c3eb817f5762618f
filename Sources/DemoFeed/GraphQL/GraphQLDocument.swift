/// The subset of the GraphQL executable-document syntax the demo server understands:
/// operations with variables, fields with aliases/arguments/directives, fragments.
struct GraphQLDocument: Equatable {
    indirect enum Value: Equatable {
        case variable(String)
        case int(Int)
        case float(Double)
        case string(String)
        case bool(Bool)
        case null
        case enumValue(String)
        case list([Value])
        case object([String: Value])
    }

    struct Directive: Equatable {
        var name: String
        var arguments: [String: Value]
    }

    struct Field: Equatable {
        var alias: String?
        var name: String
        var arguments: [(name: String, value: Value)]
        var directives: [Directive]
        /// nil for a leaf field (no selection set).
        var selections: [Selection]?
        var responseKey: String { alias ?? name }

        func argument(_ name: String) -> Value? {
            arguments.first { $0.name == name }?.value
        }

        static func == (a: Field, b: Field) -> Bool {
            a.alias == b.alias && a.name == b.name && a.directives == b.directives && a.selections == b.selections
                && a.arguments.map(\.name) == b.arguments.map(\.name)
                && a.arguments.map(\.value) == b.arguments.map(\.value)
        }
    }

    indirect enum Selection: Equatable {
        case field(Field)
        case fragmentSpread(name: String, directives: [Directive])
        case inlineFragment(typeCondition: String?, directives: [Directive], selections: [Selection])
    }

    struct VariableDefinition: Equatable {
        var name: String
        /// Type as written, e.g. "ID!", "[String]".
        var type: String
        var defaultValue: Value?
    }

    struct Operation: Equatable {
        /// "query", "mutation" or "subscription".
        var kind: String
        var name: String?
        var variables: [VariableDefinition]
        var selections: [Selection]
    }

    struct Fragment: Equatable {
        var name: String
        var typeCondition: String
        var selections: [Selection]
    }

    var operations: [Operation] = []
    var fragments: [String: Fragment] = [:]
}
