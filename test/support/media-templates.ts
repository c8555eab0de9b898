// Chat templates of multimodal models, for tests of media content parts.

/** Qwen2-VL's way: a placeholder per image or video part, text parts as they are. */
export const VISION_TEMPLATE =
  "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{% if message['content'] is string %}{{ message['content'] }}" +
  "{% else %}{% for content in message['content'] %}{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}" +
  "<|vision_start|><|image_pad|><|vision_end|>{% elif content['type'] == 'video' or 'video' in content or 'video_url' in content %}<|vision_start|><|video_pad|><|vision_end|>" +
  "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}" +
  '{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}';
