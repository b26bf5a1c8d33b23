import Foundation
import LoupeProtobuf
import LoupeTrace

/// A recorded gRPC message as a JSON document, so the diff engine compares two of them field by field: protobuf's
/// JSON mapping when a descriptor set knows the method (`$.items[0].sku`), else the wire fields by number as
/// `protoc --decode_raw` reads them (`$['1']['2']` for field 2 inside field 1), a field seen more than once an array.
package enum GRPCMessageDocument {
    /// `payload` read as a message of `method` (`package.Service/Method`), its response type when `received`; nil
    /// when it is no protobuf message.
    package static func document(_ payload: Data, method: String, received: Bool,
                                 messageTypes: ProtobufDescriptorSet?) -> JSONValue? {
        if let messageTypes,
           let value = ProtobufJSON.decode(payload, method: method, request: !received, in: messageTypes) {
            return JSONParser.parse(Data(value.text().utf8))
        }
        return ProtobufWireDecoder.decode(payload).map(object)
    }

    private static func object(_ fields: [ProtobufField]) -> JSONValue {
        var members: [(String, [JSONValue])] = []
        for field in fields {
            let key = String(field.number)
            if let at = members.firstIndex(where: { $0.0 == key }) {
                members[at].1.append(value(field.value))
            } else {
                members.append((key, [value(field.value)]))
            }
        }
        return .object(JSONObject(members.map { ($0.0, $0.1.count == 1 ? $0.1[0] : .array($0.1)) }))
    }

    private static func value(_ value: ProtobufField.Value) -> JSONValue {
        switch value {
        case .varint(let number): .number(JSONNumber(String(number)))
        case .fixed64(let number): .string("0x" + hex(number, width: 16))
        case .fixed32(let number): .string("0x" + hex(UInt64(number), width: 8))
        case .bytes(let bytes):
            .string(String(validating: bytes, as: UTF8.self) ?? bytes.map { hex(UInt64($0), width: 2) }.joined())
        case .message(let fields), .group(let fields): object(fields)
        }
    }

    private static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
